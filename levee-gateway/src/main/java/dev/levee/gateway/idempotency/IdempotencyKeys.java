package dev.levee.gateway.idempotency;

import dev.levee.core.time.Sleeper;
import dev.levee.gateway.jobs.Database;
import dev.levee.gateway.jobs.Job;
import dev.levee.gateway.jobs.JobResult;
import dev.levee.gateway.jobs.JobState;
import dev.levee.gateway.jobs.JobStore;
import dev.levee.gateway.jobs.Slices;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Idempotency keys with Stripe's semantics, per tenant, in the job store (so they hold across
 * restarts and replicas): the first request with a key runs and its answer is kept for {@code
 * ttl} (default 24 h); a later request with the same key and the same body gets that answer again
 * without running; the same key with another body is refused (422); a request arriving while the
 * first is in flight waits for it, within its own deadline.
 *
 * <p>Only answers a retry could not change are kept: 2xx and 4xx other than 408, 409 and 429, and
 * answers that queued the request as a job ({@code x-levee-job}, a 503 of a fail-closed feature
 * included): a retry with the key refers to that job — the same queued answer while it waits, the
 * job's answer once it has ended ({@link #withJobs}) — and the upstream generates once. Any other
 * outcome (a 5xx, a 429, a client that went away) releases the key, so the retry runs again. An in-flight key whose owner died is
 * taken over once its lease (the request deadline plus a margin) runs out.
 *
 * <p><b>Bounded.</b> Clients choose the keys, and a client that sends a new one with every request
 * never asks for an old one again: the queue's workers {@linkplain #sweepAll sweep} the keys past
 * their TTL, and in-flight keys past their lease, out of the store every ten {@code queue.poll}s
 * (in slices of at most {@value #SWEPT_KEYS} of each, until a slice comes back short or the
 * upkeep's budget is spent), so the store holds the keys of the last TTL and of one upkeep, whatever
 * clients send, as long as an upkeep's budget deletes what came of age since the last; a larger
 * backlog (after a long stop) goes over as many upkeeps as it needs. No request waits for a sweep.
 * Thread-safe.
 */
public final class IdempotencyKeys {

  /** The most keys of each kind (answered past their TTL, in flight past their lease) one {@link #sweep} deletes. */
  public static final int SWEPT_KEYS = 1_000;

  /**
   * {@link #sweep}'s answers past their TTL, at most {@value #SWEPT_KEYS}; one parameter, now (epoch
   * millis). The inner select reads index {@code idempotency_keys_expired}.
   */
  static final String SWEEP_EXPIRED = "DELETE FROM idempotency_keys WHERE (tenant, idem_key) IN (SELECT tenant, idem_key "
      + "FROM idempotency_keys WHERE state = 'done' AND expires_at <= ? LIMIT " + SWEPT_KEYS + ")";

  /**
   * {@link #sweep}'s in-flight keys past their lease (their gateway died), at most {@value
   * #SWEPT_KEYS}; one parameter, now (epoch millis). The inner select reads index {@code
   * idempotency_keys_abandoned}.
   */
  static final String SWEEP_ABANDONED = "DELETE FROM idempotency_keys WHERE (tenant, idem_key) IN (SELECT tenant, "
      + "idem_key FROM idempotency_keys WHERE state = 'in_flight' AND lease_until <= ? LIMIT " + SWEPT_KEYS + ")";

  /** The header of an answer that queued its request as a job ({@code LeveeHeaders.JOB}). */
  private static final String JOB = "x-levee-job";

  /** What {@link #begin} decided. */
  public sealed interface Claim permits Owner, Replay, Mismatch, StillInFlight {}

  /** This request owns the key: run it, then {@link #finish} or {@link #release}. */
  public record Owner(String tenant, String key) implements Claim {}

  /** The key's first answer, to send again. */
  public record Replay(JobResult result) implements Claim {}

  /** The key was used with another request body (422). */
  public record Mismatch() implements Claim {}

  /** The first request with this key is still running and the deadline passed (409). */
  public record StillInFlight() implements Claim {}

  private final Database db;
  private final InstantSource wall;
  private final Sleeper sleeper;
  private final Duration ttl;
  private final Duration lease;
  private final JobStore jobs; // null: an answer naming a job is replayed as it was recorded

  /**
   * @param ttl how long a key's answer is kept
   * @param lease how long an in-flight key belongs to its request before another may take it
   */
  public IdempotencyKeys(Database db, InstantSource wall, Sleeper sleeper, Duration ttl, Duration lease) {
    this(db, wall, sleeper, ttl, lease, null);
  }

  private IdempotencyKeys(Database db, InstantSource wall, Sleeper sleeper, Duration ttl, Duration lease,
      JobStore jobs) {
    this.db = db;
    this.wall = wall;
    this.sleeper = sleeper;
    this.ttl = ttl;
    this.lease = lease;
    this.jobs = jobs;
  }

  /**
   * These keys, following the jobs their answers name: a kept answer that queued its request as a
   * job ({@code x-levee-job}) is replayed as the job's own answer once the job has ended, as the
   * same queued answer while it waits or runs, and frees the key when the job expired or was
   * cancelled without an answer.
   */
  public IdempotencyKeys withJobs(JobStore jobs) {
    return new IdempotencyKeys(db, wall, sleeper, ttl, lease, jobs);
  }

  /**
   * Claims {@code key} for a request whose body hashes to {@code fingerprint}, waiting (until
   * {@code waitUntil}) while another request with the key is in flight.
   *
   * @throws InterruptedException when the waiting request is cancelled
   */
  public Claim begin(String tenant, String key, String fingerprint, Instant waitUntil) throws InterruptedException {
    Duration pause = Duration.ofMillis(10);
    while (true) {
      Instant now = wall.instant();
      if (tryInsert(tenant, key, fingerprint, now)) {
        return new Owner(tenant, key);
      }
      JobResult kept = null;
      long keptUntil = 0;
      try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(
          "SELECT fingerprint, state, lease_until, expires_at, result_status, result_headers, result_body "
              + "FROM idempotency_keys WHERE tenant = ? AND idem_key = ?")) {
        s.setString(1, tenant);
        s.setString(2, key);
        try (ResultSet rs = s.executeQuery()) {
          if (rs.next()) {
            boolean done = rs.getString("state").equals("done");
            long until = done ? rs.getLong("expires_at") : rs.getLong("lease_until");
            if (until <= now.toEpochMilli()) {
              delete(c, tenant, key, until); // expired, or its owner died: the key is free again
              continue;
            }
            if (!rs.getString("fingerprint").equals(fingerprint)) {
              return new Mismatch();
            }
            if (done) {
              kept = new JobResult(rs.getInt("result_status"),
                  JobStore.headers(rs.getString("result_headers")), rs.getBytes("result_body"));
              keptUntil = until;
            }
          } else {
            continue; // released meanwhile: try to own it
          }
        }
      } catch (SQLException e) {
        throw new JobStore.StoreException("cannot read an idempotency key", e);
      }
      if (kept != null) { // read outside the key's connection: SQLite has a single one
        Claim replay = replay(tenant, kept);
        if (replay != null) {
          return replay;
        }
        forget(tenant, key, keptUntil); // its job ended without an answer: the key is free again
        continue;
      }
      if (!wall.instant().plus(pause).isBefore(waitUntil)) {
        return new StillInFlight();
      }
      sleeper.sleep(pause);
      pause = pause.multipliedBy(2).compareTo(Duration.ofMillis(200)) > 0 ? Duration.ofMillis(200) : pause.multipliedBy(2);
    }
  }

  /**
   * The replay of a kept answer: the answer itself, or — for an answer that queued its request as
   * a job — the job's answer once it has one, the queued answer again while the job waits or
   * runs; null when the job ended without an answer (expired, cancelled) or is gone.
   */
  private Claim replay(String tenant, JobResult kept) {
    String jobId = jobOf(kept);
    if (jobId == null || jobs == null) {
      return new Replay(kept);
    }
    Optional<Job> job = jobs.job(tenant, jobId);
    if (job.isEmpty()) {
      return null;
    }
    JobState state = job.get().state();
    if (state == JobState.QUEUED || state == JobState.RUNNING) {
      return new Replay(kept); // the same queued answer, pointing at the same job
    }
    JobResult result = job.get().result();
    if (result == null) {
      return null;
    }
    Map<String, List<String>> headers = new LinkedHashMap<>(result.headers());
    headers.put(JOB, List.of(jobId));
    return new Replay(new JobResult(result.status(), headers, result.body()));
  }

  /** The job an answer names ({@code x-levee-job}: its request was queued), or null. */
  static String jobOf(JobResult result) {
    List<String> job = result.headers().get(JOB);
    return job == null || job.isEmpty() ? null : job.getFirst();
  }

  /**
   * Whether {@code result} is kept for the key (else the key is released): an answer of a status
   * {@link #keeps(int)} keeps, or one that queued its request as a job — a 503 naming the job
   * included, so the client's retry with the key refers to that job instead of queueing another.
   */
  public static boolean keeps(JobResult result) {
    return keeps(result.status()) || jobOf(result) != null;
  }

  /** Whether an answer of {@code status} is kept for the key (else the key is released). */
  public static boolean keeps(int status) {
    return status / 100 == 2 || (status / 100 == 4 && status != 408 && status != 409 && status != 429);
  }

  /** Keeps {@code result} as the key's answer, or releases the key when a retry could change it. */
  public void finish(Owner owner, JobResult result) {
    if (!keeps(result)) {
      release(owner);
      return;
    }
    Instant now = wall.instant();
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(
        "UPDATE idempotency_keys SET state = 'done', result_status = ?, result_headers = ?, result_body = ?, "
            + "expires_at = ? WHERE tenant = ? AND idem_key = ?")) {
      s.setInt(1, result.status());
      s.setString(2, JobStore.json(result.headers()));
      s.setBytes(3, result.body());
      s.setLong(4, now.plus(ttl).toEpochMilli());
      s.setString(5, owner.tenant());
      s.setString(6, owner.key());
      s.executeUpdate();
    } catch (SQLException e) {
      throw new JobStore.StoreException("cannot keep an idempotent answer", e);
    }
  }

  /** Frees the key: the next request with it runs. */
  public void release(Owner owner) {
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(
        "DELETE FROM idempotency_keys WHERE tenant = ? AND idem_key = ? AND state = 'in_flight'")) {
      s.setString(1, owner.tenant());
      s.setString(2, owner.key());
      s.executeUpdate();
    } catch (SQLException e) {
      throw new JobStore.StoreException("cannot release an idempotency key", e);
    }
  }

  /**
   * Forgets keys whose answers are past their TTL, and in-flight keys past their lease (at most
   * {@value #SWEPT_KEYS} of each a call: the next call goes on); returns how many. The queue's
   * workers call it with their upkeep ({@code JobWorkers#alsoKeepUp}), off the request path.
   */
  public int sweep() {
    long now = wall.millis();
    try (Connection c = db.connection()) {
      int swept = 0;
      for (String sql : List.of(SWEEP_EXPIRED, SWEEP_ABANDONED)) { // each read through its own index (V9)
        try (PreparedStatement s = c.prepareStatement(sql)) {
          s.setLong(1, now);
          swept += s.executeUpdate();
        }
      }
      return swept;
    } catch (SQLException e) {
      throw new JobStore.StoreException("cannot sweep idempotency keys", e);
    }
  }

  /**
   * {@link #sweep}s slice after slice until one comes back short, or {@code budget} has passed on
   * {@code nanos} since the first slice began; at least one slice, whatever the budget. One slice an
   * upkeep ({@value #SWEPT_KEYS} keys every ten {@code queue.poll}s, 100 a second with the defaults)
   * fell behind clients sending more new keys than that, and the store grew for as long as they did;
   * without a budget, the keys of a long stop (millions past their TTL at once) held the workers'
   * dispatcher, which claims jobs and delivers callbacks, until every one was gone. Each slice is a
   * statement of its own, so requests get the store between them. The budget is checked between
   * slices. Returns how many keys went; the rest, if the budget ran out, goes at the next call. The
   * workers call it as a {@code JobWorkers.Chore}, with their clock and upkeep budget.
   *
   * @param nanos a monotonic clock, nanoseconds ({@code System::nanoTime}; a test's ticker)
   * @param budget how long to go on starting slices; zero: one slice
   */
  public int sweepAll(LongSupplier nanos, Duration budget) {
    return Slices.untilShortOrSpent(() -> {
      int swept = sweep();
      return new Slices.Done(swept, swept >= SWEPT_KEYS); // either half may have been full
    }, nanos, budget);
  }

  private boolean tryInsert(String tenant, String key, String fingerprint, Instant now) {
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(
        "INSERT INTO idempotency_keys (tenant, idem_key, fingerprint, state, lease_until, expires_at) "
            + "VALUES (?,?,?,'in_flight',?,?) ON CONFLICT (tenant, idem_key) DO NOTHING")) {
      s.setString(1, tenant);
      s.setString(2, key);
      s.setString(3, fingerprint);
      s.setLong(4, now.plus(lease).toEpochMilli());
      s.setLong(5, now.plus(ttl).toEpochMilli());
      return s.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new JobStore.StoreException("cannot claim an idempotency key", e);
    }
  }

  /** Deletes a kept key whose answer can no longer be replayed (it names a job that ended without one). */
  private void forget(String tenant, String key, long expiresAt) {
    try (Connection c = db.connection()) {
      delete(c, tenant, key, expiresAt);
    } catch (SQLException e) {
      throw new JobStore.StoreException("cannot free an idempotency key", e);
    }
  }

  private static void delete(Connection c, String tenant, String key, long until) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("DELETE FROM idempotency_keys WHERE tenant = ? AND idem_key = ? "
        + "AND ((state = 'done' AND expires_at = ?) OR (state = 'in_flight' AND lease_until = ?))")) {
      s.setString(1, tenant);
      s.setString(2, key);
      s.setLong(3, until);
      s.setLong(4, until);
      s.executeUpdate();
    }
  }
}
