package dev.levee.gateway.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.levee.anthropic.Json;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Jobs, durably: accepted work is committed before it is acknowledged, claimed atomically by one
 * worker, and ends with exactly one recorded result (promise 6).
 *
 * <p><b>Claiming.</b> {@link #claim} moves the highest-priority, oldest ready jobs to {@code
 * running} in one statement: with {@code FOR UPDATE SKIP LOCKED} on PostgreSQL, so gateways
 * sharing the tables never claim the same job; on SQLite the single connection makes the
 * statement the only writer.
 *
 * <p><b>Crashes.</b> A claim holds a lease ({@link QueueConfig#lease()}), which its worker keeps
 * renewing ({@link #renew}) while the job runs. A job still {@code running} when its lease ran
 * out — its gateway died, or could not reach the database — is queued again by {@link #recover}, so
 * it runs at least once more towards the upstream. Results are recorded only by the claim that
 * is current ({@code attempts} must match), so exactly one result is ever recorded.
 *
 * <p><b>Callbacks.</b> A job that ends with a callback URL owes its callback ({@code callback_state
 * pending}); {@link OwedCallbacks} claims owed callbacks for delivery the same way, one sender each.
 *
 * <p>Thread-safe; every method is one short transaction. {@link SQLException}s surface as {@link
 * StoreException}.
 */
public final class JobStore {

  private static final TypeReference<Map<String, List<String>>> HEADERS = new TypeReference<>() {};
  private static final SecureRandom IDS = new SecureRandom();
  /** The columns {@link #read} reads ({@link OwedCallbacks} reads them too). */
  static final String COLUMNS = "id, tenant, feature, alias, priority, batch_id, custom_id, request_path, "
      + "request_query, request_headers, request_body, sealed_key, state, attempts, created_at, expires_at, "
      + "result_status, result_headers, result_body, last_error, run_after";

  /** A database failure, unchecked: the caller answers 500 and nothing was half-written. */
  public static final class StoreException extends RuntimeException {
    public StoreException(String message, SQLException cause) {
      super(message + ": " + cause.getMessage(), cause);
    }
  }

  private static final String CANCELLED_BATCH = "EXISTS (SELECT 1 FROM batches b WHERE b.id = jobs.batch_id "
      + "AND b.cancel_initiated_at IS NOT NULL)";

  private final Database db;
  /** Recorded with each claim ({@code claimed_by}); null when {@code queue.replica-id} is unset. */
  private final String replicaId;

  /** A store whose claims name no replica. */
  public JobStore(Database db) {
    this(db, "");
  }

  /**
   * A store whose claims record {@code replicaId} ({@link QueueConfig#replicaId}; empty: none), so
   * that {@link #recoverOwn} can take them back after a restart.
   */
  public JobStore(Database db, String replicaId) {
    this.db = db;
    this.replicaId = replicaId == null || replicaId.isEmpty() ? null : replicaId;
  }

  public Database database() {
    return db;
  }

  /** The replica id its claims record; null when none is configured. */
  String replicaId() {
    return replicaId;
  }

  /** A fresh id: {@code prefix} and 26 base-32 characters (130 random bits). */
  public static String newId(String prefix) {
    byte[] bytes = new byte[17];
    IDS.nextBytes(bytes);
    StringBuilder out = new StringBuilder(prefix);
    String alphabet = "0123456789abcdefghjkmnpqrstvwxyz";
    java.math.BigInteger n = new java.math.BigInteger(1, bytes);
    for (int i = 0; i < 26; i++) {
      out.append(alphabet.charAt(n.intValue() & 31));
      n = n.shiftRight(5);
    }
    return out.toString();
  }

  /** Stores one job, {@code queued}, expiring at {@code expiresAt}; returns its id. */
  public String enqueue(NewJob job, Instant now, Instant expiresAt) {
    try (Connection c = db.connection()) {
      return insert(c, null, List.of(job), now, expiresAt).getFirst();
    } catch (SQLException e) {
      throw new StoreException("cannot store a job", e);
    }
  }

  /**
   * Inserts {@code jobs} on {@code c} (inside the caller's transaction), in order, position 0…;
   * returns their ids.
   */
  public List<String> insert(Connection c, String batchId, List<NewJob> jobs, Instant now, Instant expiresAt)
      throws SQLException {
    List<String> ids = new ArrayList<>(jobs.size());
    try (PreparedStatement s = c.prepareStatement("INSERT INTO jobs (id, tenant, feature, alias, priority, batch_id, "
        + "custom_id, position, request_path, request_query, request_headers, request_body, sealed_key, state, "
        + "attempts, created_at, updated_at, run_after, expires_at, callback_url) "
        + "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,'queued',0,?,?,?,?,?)")) {
      int position = 0;
      for (NewJob job : jobs) {
        String id = newId("job_");
        ids.add(id);
        s.setString(1, id);
        s.setString(2, job.tenant());
        s.setString(3, job.feature());
        s.setString(4, job.alias());
        s.setInt(5, job.priority());
        s.setString(6, batchId);
        s.setString(7, job.customId());
        s.setInt(8, position++);
        s.setString(9, job.request().path());
        s.setString(10, job.request().query());
        s.setString(11, json(job.request().headers()));
        s.setBytes(12, job.request().body());
        if (job.sealedKey() == null) {
          s.setNull(13, Types.BINARY);
        } else {
          s.setBytes(13, job.sealedKey());
        }
        s.setLong(14, now.toEpochMilli());
        s.setLong(15, now.toEpochMilli());
        s.setLong(16, now.toEpochMilli());
        s.setLong(17, expiresAt.toEpochMilli());
        s.setString(18, job.callbackUrl());
        s.addBatch();
        if (position % 1000 == 0) {
          s.executeBatch();
        }
      }
      s.executeBatch();
    }
    return ids;
  }

  /**
   * Claims up to {@code max} ready jobs — highest priority first, then oldest, then (a batch's
   * jobs being equally old) in request order — whatever their feature, whose alias and feature are
   * not paused, marking them {@code running} with a lease until {@code leaseUntil}.
   *
   * @return the claimed jobs, in drain order (attempts already counts this claim)
   */
  public List<Job> claim(int max, Instant now, Instant leaseUntil, Set<String> pausedAliases,
      Set<String> pausedFeatures) {
    return claim(max, now, leaseUntil, pausedAliases, pausedFeatures, Set.of());
  }

  /**
   * {@link #claim(int, Instant, Instant, Set, Set)}, also leaving out the jobs of each feature and
   * alias pair in {@code pausedScopes} (held by that pair's own tier).
   */
  public List<Job> claim(int max, Instant now, Instant leaseUntil, Set<String> pausedAliases,
      Set<String> pausedFeatures, Set<PauseGate.Scope> pausedScopes) {
    return claim(null, max, now, leaseUntil, pausedAliases, pausedFeatures, pausedScopes);
  }

  /**
   * {@link #claim(int, Instant, Instant, Set, Set, Set)} among the jobs of {@code aliases} only: the
   * trial call of a target the aliases wait on ({@link PauseGate.Trial}).
   */
  public List<Job> claimOf(Set<String> aliases, int max, Instant now, Instant leaseUntil, Set<String> pausedFeatures,
      Set<PauseGate.Scope> pausedScopes) {
    if (aliases.isEmpty()) {
      return List.of();
    }
    return claim(aliases, max, now, leaseUntil, Set.of(), pausedFeatures, pausedScopes);
  }

  private List<Job> claim(Set<String> onlyAliases, int max, Instant now, Instant leaseUntil, Set<String> pausedAliases,
      Set<String> pausedFeatures, Set<PauseGate.Scope> pausedScopes) {
    if (max <= 0) {
      return List.of();
    }
    StringBuilder pick = new StringBuilder("SELECT id FROM jobs WHERE ")
        .append(ready(onlyAliases, pausedAliases, pausedFeatures, pausedScopes))
        .append(" ORDER BY priority DESC, created_at, position, id LIMIT ?");
    if (db.dialect() == Database.Dialect.POSTGRESQL) {
      pick.append(" FOR UPDATE SKIP LOCKED");
    }
    String sql = "UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_until = ?, updated_at = ?, "
        + "claimed_by = ? WHERE id IN (" + pick + ") RETURNING " + COLUMNS + ", position";
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(sql)) {
      int i = 1;
      s.setLong(i++, leaseUntil.toEpochMilli());
      s.setLong(i++, now.toEpochMilli());
      s.setString(i++, replicaId);
      i = bindReady(s, i, now, onlyAliases, pausedAliases, pausedFeatures, pausedScopes);
      s.setInt(i, max);
      record Claimed(Job job, int position) {}
      List<Claimed> claimed = new ArrayList<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          claimed.add(new Claimed(read(rs), rs.getInt("position")));
        }
      }
      // RETURNING has no order: sort as the pick did
      claimed.sort(Comparator.comparingInt((Claimed j) -> -j.job().priority()).thenComparing(j -> j.job().createdAt())
          .thenComparingInt(Claimed::position).thenComparing(j -> j.job().id()));
      return claimed.stream().map(Claimed::job).toList();
    } catch (SQLException e) {
      throw new StoreException("cannot claim jobs", e);
    }
  }

  /**
   * Whether a job of {@code aliases} is ready to run now, as {@link #claimOf} would claim one: a
   * look that claims nothing, so that a trial permit is taken only for a job that will use it.
   */
  public boolean readyOf(Set<String> aliases, Instant now, Set<String> pausedFeatures,
      Set<PauseGate.Scope> pausedScopes) {
    if (aliases.isEmpty()) {
      return false;
    }
    String sql = "SELECT 1 FROM jobs WHERE " + ready(aliases, Set.of(), pausedFeatures, pausedScopes) + " LIMIT 1";
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(sql)) {
      bindReady(s, 1, now, aliases, Set.of(), pausedFeatures, pausedScopes);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next();
      }
    } catch (SQLException e) {
      throw new StoreException("cannot look for ready jobs", e);
    }
  }

  /** The condition of a job ready to be claimed (bound by {@link #bindReady}): queued, due, unexpired, not paused. */
  private static String ready(Set<String> onlyAliases, Set<String> pausedAliases, Set<String> pausedFeatures,
      Set<PauseGate.Scope> pausedScopes) {
    StringBuilder where = new StringBuilder("state = 'queued' AND run_after <= ? AND expires_at > ?");
    if (onlyAliases != null) {
      where.append(" AND alias IN (").append("?,".repeat(onlyAliases.size() - 1)).append("?)");
    }
    if (!pausedAliases.isEmpty()) {
      where.append(" AND alias NOT IN (").append("?,".repeat(pausedAliases.size() - 1)).append("?)");
    }
    if (!pausedFeatures.isEmpty()) {
      where.append(" AND feature NOT IN (").append("?,".repeat(pausedFeatures.size() - 1)).append("?)");
    }
    for (int n = 0; n < pausedScopes.size(); n++) {
      where.append(" AND NOT (feature = ? AND alias = ?)");
    }
    return where.toString();
  }

  /** Binds {@link #ready}'s parameters from index {@code i}; the next free index. */
  private static int bindReady(PreparedStatement s, int i, Instant now, Set<String> onlyAliases,
      Set<String> pausedAliases, Set<String> pausedFeatures, Set<PauseGate.Scope> pausedScopes) throws SQLException {
    s.setLong(i++, now.toEpochMilli());
    s.setLong(i++, now.toEpochMilli());
    if (onlyAliases != null) {
      for (String alias : onlyAliases) {
        s.setString(i++, alias);
      }
    }
    for (String alias : pausedAliases) {
      s.setString(i++, alias);
    }
    for (String feature : pausedFeatures) {
      s.setString(i++, feature);
    }
    for (PauseGate.Scope scope : pausedScopes) {
      s.setString(i++, scope.feature());
      s.setString(i++, scope.alias());
    }
    return i;
  }

  /** How many claims one {@link #renew} statement carries at most (SQLite allows 32,766 parameters). */
  private static final int RENEW_CHUNK = 500;

  /**
   * Extends the lease of every job in {@code claimed} that is still held by that very claim — still
   * {@code running} with the same {@code attempts} — to {@code leaseUntil}: one UPDATE per 500
   * jobs. A job that ended, was requeued by {@link #recover} or was claimed again by another worker
   * (its {@code attempts} went up) is left alone, so a renewal never takes a job back.
   *
   * @return how many leases were extended; fewer than {@code claimed.size()} means some claims were lost
   */
  public int renew(Collection<Job> claimed, Instant leaseUntil, Instant now) {
    return renewHeld(claimed, leaseUntil, now).size();
  }

  /**
   * {@link #renew}, naming the claims it extended: a claim of {@code claimed} missing from the
   * answer is no longer this claim's — it ended, or its lease ran out and it was queued again or
   * taken over (by another worker, or by this very pool: the same job claimed again is a new claim,
   * with more {@code attempts}) — and its worker should stop (its result would not be recorded anyway).
   *
   * @return the claims of {@code claimed} whose lease now runs to {@code leaseUntil}
   */
  public Set<Job> renewHeld(Collection<Job> claimed, Instant leaseUntil, Instant now) {
    List<Job> jobs = List.copyOf(claimed);
    Set<Job> renewed = new java.util.HashSet<>();
    try (Connection c = db.connection()) {
      for (int from = 0; from < jobs.size(); from += RENEW_CHUNK) {
        List<Job> chunk = jobs.subList(from, Math.min(jobs.size(), from + RENEW_CHUNK));
        String sql = "UPDATE jobs SET lease_until = ?, updated_at = ? WHERE state = 'running' AND ("
            + String.join(" OR ", java.util.Collections.nCopies(chunk.size(), "(id = ? AND attempts = ?)"))
            + ") RETURNING id, attempts";
        try (PreparedStatement s = c.prepareStatement(sql)) {
          int i = 1;
          s.setLong(i++, leaseUntil.toEpochMilli());
          s.setLong(i++, now.toEpochMilli());
          for (Job job : chunk) {
            s.setString(i++, job.id());
            s.setInt(i++, job.attempts());
          }
          Set<String> held = new java.util.HashSet<>();
          try (ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
              held.add(rs.getString(1) + '#' + rs.getInt(2));
            }
          }
          for (Job job : chunk) { // by id and attempts: an older claim of a job claimed again is not renewed
            if (held.contains(job.id() + '#' + job.attempts())) {
              renewed.add(job);
            }
          }
        }
      }
      return renewed;
    } catch (SQLException e) {
      throw new StoreException("cannot renew the leases of " + jobs.size() + " running jobs", e);
    }
  }

  /**
   * Records the one result of {@code job} as claimed: {@code succeeded} or {@code failed}; erases
   * its sealed key.
   *
   * @return false when this claim is no longer current (the job was claimed again after its lease
   *     ran out, or cancelled): nothing was recorded
   */
  public boolean finish(Job job, JobResult result, boolean succeeded, String error, Instant now) {
    String sql = "UPDATE jobs SET state = ?, result_status = ?, result_headers = ?, result_body = ?, last_error = ?, "
        + "finished_at = ?, updated_at = ?, sealed_key = NULL, lease_until = NULL, "
        + "callback_state = CASE WHEN callback_url IS NULL THEN NULL ELSE 'pending' END "
        + "WHERE id = ? AND state = 'running' AND attempts = ?";
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, (succeeded ? JobState.SUCCEEDED : JobState.FAILED).wire());
      s.setInt(2, result.status());
      s.setString(3, json(result.headers()));
      s.setBytes(4, result.body());
      s.setString(5, error);
      s.setLong(6, now.toEpochMilli());
      s.setLong(7, now.toEpochMilli());
      s.setString(8, job.id());
      s.setInt(9, job.attempts());
      return s.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new StoreException("cannot record the result of " + job.id(), e);
    }
  }

  /** Puts a claimed job back in the queue, ready again at {@code runAfter}; false when the claim is stale. */
  public boolean retryLater(Job job, String error, Instant runAfter, Instant now) {
    // a job whose batch was cancelled while it ran ends cancelled instead of waiting again
    String sql = "UPDATE jobs SET state = CASE WHEN " + CANCELLED_BATCH + " THEN 'cancelled' ELSE 'queued' END, "
        + "finished_at = CASE WHEN " + CANCELLED_BATCH + " THEN ? ELSE NULL END, "
        + "run_after = ?, last_error = ?, updated_at = ?, lease_until = NULL "
        + "WHERE id = ? AND state = 'running' AND attempts = ?";
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(sql)) {
      s.setLong(1, now.toEpochMilli());
      s.setLong(2, runAfter.toEpochMilli());
      s.setString(3, error);
      s.setLong(4, now.toEpochMilli());
      s.setString(5, job.id());
      s.setInt(6, job.attempts());
      return s.executeUpdate() == 1;
    } catch (SQLException e) {
      throw new StoreException("cannot requeue " + job.id(), e);
    }
  }

  /** The {@code last_error} of a job queued again because its claim's lease ran out. */
  static final String LEASE_LOST = "lease_lost: its worker's lease ran out before the job ended (its gateway stopped, "
      + "or could not renew the lease); run again";

  /** The {@code last_error} of a running job its gateway queued again as it stopped ({@link JobWorkers#close(java.time.Duration)}). */
  static final String SHUTDOWN = "shutdown: its gateway stopped before the job ended (past server.shutdown-grace); "
      + "run again";

  /** The {@code last_error} of a job its own gateway queued again at start-up. */
  static final String RESTARTED = "its gateway stopped before the job ended; run again";

  /**
   * Queues again every job whose claim is abandoned: {@code running} with its lease run out, or —
   * with {@code everyRunning}, for an embedded file only this process uses, at start-up — every
   * {@code running} job. Returns how many.
   */
  public int recover(Instant now, boolean everyRunning) {
    String sql = "UPDATE jobs SET state = CASE WHEN " + CANCELLED_BATCH + " THEN 'cancelled' ELSE 'queued' END, "
        + "lease_until = NULL, updated_at = ?, last_error = ? WHERE state = 'running'"
        + (everyRunning ? "" : " AND lease_until <= ?");
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(sql)) {
      s.setLong(1, now.toEpochMilli());
      s.setString(2, everyRunning ? RESTARTED : LEASE_LOST);
      if (!everyRunning) {
        s.setLong(3, now.toEpochMilli());
      }
      return s.executeUpdate();
    } catch (SQLException e) {
      throw new StoreException("cannot recover abandoned jobs", e);
    }
  }

  /**
   * At start-up on a shared store: queues again at once every job still {@code running} under this
   * store's replica id — claims its previous process held when it stopped — instead of waiting out
   * their lease. Nothing without a replica id. Returns how many. Sound only while no other live
   * process has the same replica id: {@link JobWorkers#start} makes sure of that first ({@link
   * ReplicaLease}).
   */
  public int recoverOwn(Instant now) {
    if (replicaId == null) {
      return 0;
    }
    String sql = "UPDATE jobs SET state = CASE WHEN " + CANCELLED_BATCH + " THEN 'cancelled' ELSE 'queued' END, "
        + "lease_until = NULL, updated_at = ?, last_error = ? WHERE state = 'running' AND claimed_by = ?";
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(sql)) {
      s.setLong(1, now.toEpochMilli());
      s.setString(2, RESTARTED);
      s.setString(3, replicaId);
      return s.executeUpdate();
    } catch (SQLException e) {
      throw new StoreException("cannot recover this replica's earlier claims", e);
    }
  }

  /**
   * Ends every queued job past its expiry as {@code expired} (its sealed key erased) and, in the
   * same statement, marks the callback of each one that has a callback URL as owed ({@code
   * pending}), as {@link #finish} does: an expired job ends too, and its callback fires once
   * (docs/jobs.md). Only the statement that moves a job out of {@code queued} marks it, so
   * replicas expiring at once owe each callback once. Returns how many jobs expired.
   */
  public int expire(Instant now) {
    String sql = "UPDATE jobs SET state = 'expired', finished_at = ?, updated_at = ?, sealed_key = NULL, "
        + "callback_state = CASE WHEN callback_url IS NULL THEN NULL ELSE 'pending' END "
        + "WHERE state = 'queued' AND expires_at <= ?";
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(sql)) {
      s.setLong(1, now.toEpochMilli());
      s.setLong(2, now.toEpochMilli());
      s.setLong(3, now.toEpochMilli());
      return s.executeUpdate();
    } catch (SQLException e) {
      throw new StoreException("cannot expire jobs", e);
    }
  }

  /**
   * How long ended work is kept by default ({@code queue.retention}), 29 days (as Anthropic keeps a
   * Message Batch's results): a job that is in no batch, from its end; a batch, from its creation,
   * once every request of it has ended.
   */
  public static final java.time.Duration RETENTION = java.time.Duration.ofDays(29);

  /** The batches one {@link #purge} slice deletes at most; {@link #purgeAll} goes on with the next slice. */
  static final int PURGED_BATCHES = 100;

  /**
   * The jobs in no batch one {@link #purge} slice deletes at most (the first purge after an upgrade
   * may find years of them: one short transaction a slice, not one that holds the store).
   */
  static final int PURGED_JOBS = 1_000;

  /**
   * The rows one {@link #purge} slice deletes before it starts no further batch (a batch is deleted
   * whole, so one slice may go past it by one batch's requests).
   */
  static final int PURGED_ROWS = 10_000;

  private static final String OPEN = "state IN ('queued', 'running') OR COALESCE(callback_state, '') = 'pending'";

  /**
   * {@link #purge}'s jobs in no batch ended before a time: {@code created_at} and the end at most
   * the two parameters (epoch ms). Read through {@code jobs_listed} on PostgreSQL and {@code
   * jobs_unbatched_by_age} on SQLite ({@code V10__purge}): keep them together.
   */
  static final String PURGE_UNBATCHED = "DELETE FROM jobs WHERE id IN (SELECT id FROM jobs "
      + "WHERE batch_id IS NULL AND created_at <= ? AND COALESCE(finished_at, updated_at) <= ? AND NOT ("
      + OPEN + ") LIMIT " + PURGED_JOBS + ")";

  /**
   * {@link #purge}'s batches created at or before the parameter (epoch ms) whose requests have all
   * ended; read through {@code batches_by_age} and {@code jobs_open_by_batch} ({@code V10__purge},
   * whose predicate is {@code OPEN} as written here): keep them together.
   */
  static final String ENDED_BATCHES = "SELECT id FROM batches b WHERE created_at <= ? AND NOT EXISTS "
      + "(SELECT 1 FROM jobs j WHERE j.batch_id = b.id AND (" + OPEN + ")) LIMIT " + PURGED_BATCHES;

  /**
   * Deletes one slice of the work ended more than {@code retention} ago ({@code queue.retention},
   * default {@link #RETENTION}): jobs in no batch that ended before then, and batches created before
   * then whose requests have all ended, with their requests — at most {@value #PURGED_JOBS} such
   * jobs and {@value #PURGED_BATCHES} batches, no further batch once {@value #PURGED_ROWS} rows went,
   * each batch in a transaction, and on a connection, of its own. Work still queued or running, or
   * whose callback is still owed, is kept however old (promise 6). Clients choose how much work they
   * send, so without this the store grew for ever. The workers call {@link #purgeAll}, slice after
   * slice, with {@link #expire}. Returns how many jobs went.
   */
  public int purge(Instant now, java.time.Duration retention) {
    return slice(now.minus(retention).toEpochMilli()).count();
  }

  /** One {@link #purge} slice: the rows of the jobs table it deleted (in no batch and of its batches). */
  private Slices.Done slice(long before) {
    int jobs;
    List<String> ended = new ArrayList<>();
    try (Connection c = db.connection()) { // given back before the batches: each takes one of its own
      try (PreparedStatement s = c.prepareStatement(PURGE_UNBATCHED)) {
        s.setLong(1, before); // created before it ended: lets the store read the oldest rows only (jobs_listed)
        s.setLong(2, before);
        jobs = s.executeUpdate();
      }
      try (PreparedStatement s = c.prepareStatement(ENDED_BATCHES)) {
        s.setLong(1, before);
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            ended.add(rs.getString(1));
          }
        }
      }
    } catch (SQLException e) {
      throw new StoreException("cannot purge ended work", e);
    }
    boolean full = jobs >= PURGED_JOBS || ended.size() >= PURGED_BATCHES;
    for (String batch : ended) { // a transaction, and a connection, a batch: one may hold 100,000 requests
      if (jobs >= PURGED_ROWS) {
        full = true; // ended batches left: the next slice goes on
        break;
      }
      jobs += db.inTransaction("cannot purge an ended batch", c -> {
        int deleted;
        try (PreparedStatement s = c.prepareStatement("DELETE FROM jobs WHERE batch_id = ?")) {
          s.setString(1, batch);
          deleted = s.executeUpdate();
        }
        try (PreparedStatement s = c.prepareStatement("DELETE FROM batches WHERE id = ?")) {
          s.setString(1, batch);
          s.executeUpdate();
        }
        return deleted;
      });
    }
    return new Slices.Done(jobs, full);
  }

  /**
   * {@link #purge}s slice after slice until one comes back short — none of its caps reached: its
   * jobs in no batch, its batches, its rows — or {@code budget} has passed on {@code nanos} since
   * the first slice began; at least one slice, whatever the budget. One slice an upkeep ({@value
   * #PURGED_JOBS} jobs in no batch, {@value #PURGED_BATCHES} batches, every ten {@code queue.poll}s)
   * fell behind whenever more work ended than that for long — an outage queue expiring, a client
   * sending many small batches — and the store grew for as long as it did. Each slice keeps its short
   * transactions (one statement for the jobs in no batch, one transaction a batch), so requests and
   * other replicas get the store between them. The budget is checked between slices: one slice may
   * outlast it (a batch is deleted whole). Returns how many jobs went; the rest, if the budget ran
   * out, goes at the next call.
   *
   * @param nanos a monotonic clock, nanoseconds ({@code System::nanoTime}; a test's ticker)
   * @param budget how long to go on starting slices; zero: one slice
   */
  public int purgeAll(Instant now, java.time.Duration retention, LongSupplier nanos, java.time.Duration budget) {
    long before = now.minus(retention).toEpochMilli();
    return Slices.untilShortOrSpent(() -> slice(before), nanos, budget);
  }

  /**
   * How many jobs of one feature are in one state now, and the oldest one's creation time.
   *
   * @param oldest the earliest {@code created_at} among them
   */
  public record Count(String feature, JobState state, long jobs, Instant oldest) {}

  /** Every (feature, state) pair's count: one grouped scan, for metrics. */
  public List<Count> counts() {
    String sql = "SELECT feature, state, COUNT(*), MIN(created_at) FROM jobs GROUP BY feature, state";
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(sql);
        java.sql.ResultSet rs = s.executeQuery()) {
      List<Count> out = new java.util.ArrayList<>();
      while (rs.next()) {
        out.add(new Count(rs.getString(1), JobState.ofWire(rs.getString(2)), rs.getLong(3),
            Instant.ofEpochMilli(rs.getLong(4))));
      }
      return out;
    } catch (SQLException e) {
      throw new StoreException("cannot count jobs", e);
    }
  }

  /** The callback state of job {@code id} ({@code pending}, {@code delivered}, {@code failed: …}), or null. */
  public String callbackState(String id) {
    try (Connection c = db.connection();
        PreparedStatement s = c.prepareStatement("SELECT callback_state FROM jobs WHERE id = ?")) {
      s.setString(1, id);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    } catch (SQLException e) {
      throw new StoreException("cannot read a callback state", e);
    }
  }

  /** The job {@code id} of {@code tenant}; empty for another tenant's (indistinguishable from none). */
  public Optional<Job> job(String tenant, String id) {
    try (Connection c = db.connection();
        PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM jobs WHERE id = ? AND tenant = ?")) {
      s.setString(1, id);
      s.setString(2, tenant);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new StoreException("cannot read a job", e);
    }
  }

  /**
   * Up to {@code limit} jobs of a batch from request {@code fromPosition} on, in request order.
   * Read results page by page: a page holds the connection (SQLite's only one) just while it is read.
   */
  public List<Job> batchJobs(String batchId, int fromPosition, int limit) {
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS
        + " FROM jobs WHERE batch_id = ? AND position >= ? ORDER BY position LIMIT ?")) {
      s.setString(1, batchId);
      s.setInt(2, fromPosition);
      s.setInt(3, limit);
      List<Job> page = new ArrayList<>(limit);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          page.add(read(rs));
        }
      }
      return page;
    } catch (SQLException e) {
      throw new StoreException("cannot read the jobs of " + batchId, e);
    }
  }

  /**
   * The job {@code id} whatever its tenant: for the operator's {@code /admin/jobs/{id}}, never a
   * client's path.
   */
  public Optional<Job> anyTenantsJob(String id) {
    try (Connection c = db.connection();
        PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM jobs WHERE id = ?")) {
      s.setString(1, id);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new StoreException("cannot read a job", e);
    }
  }

  /**
   * Which jobs an operator's listing asks for; a null or empty field matches every job.
   *
   * @param states the states to match (any of them)
   * @param alias the alias asked for, exactly
   * @param tenant the tenant partition (its hash, as listed), exactly
   * @param feature the feature, exactly
   */
  public record Filter(Set<JobState> states, String alias, String tenant, String feature) {}

  /** One page of a listing: up to {@code limit} jobs, newest first, and whether more match in the direction paged. */
  public record Page(List<Job> jobs, boolean hasMore) {}

  /** The listed columns: a job's bodies (request, result) stay in the store. */
  private static final String LISTED = "id, tenant, feature, alias, priority, batch_id, custom_id, request_path, "
      + "request_query, state, attempts, created_at, expires_at, result_status, last_error, run_after";

  /**
   * Up to {@code limit} jobs matching {@code filter}, newest first ({@code created_at}, then id,
   * descending): strictly after (older than) the job {@code afterId} when it is not null; else the
   * {@code limit} jobs right before (newer than) the job {@code beforeId} when it is not null, as
   * the Anthropic API's lists page with {@code before_id}; else the newest. {@link Page#hasMore()}
   * says whether more match in the direction paged (older, or newer for {@code beforeId}). The jobs
   * come without their bodies: {@link Job#request()} has an empty body and no headers, and {@link
   * Job#result()} only its status.
   *
   * @return empty when the cursor ({@code afterId} or {@code beforeId}) names no job
   */
  public Optional<Page> list(Filter filter, String afterId, String beforeId, int limit) {
    StringBuilder sql = new StringBuilder("SELECT " + LISTED + " FROM jobs WHERE 1 = 1");
    List<Object> args = new ArrayList<>();
    if (filter.states() != null && !filter.states().isEmpty()) {
      sql.append(" AND state IN (").append("?,".repeat(filter.states().size() - 1)).append("?)");
      filter.states().forEach(state -> args.add(state.wire()));
    }
    for (String[] column : new String[][] {{"alias", filter.alias()}, {"tenant", filter.tenant()},
        {"feature", filter.feature()}}) {
      if (column[1] != null && !column[1].isEmpty()) {
        sql.append(" AND ").append(column[0]).append(" = ?");
        args.add(column[1]);
      }
    }
    String cursor = afterId != null ? afterId : beforeId;
    boolean newer = afterId == null && beforeId != null; // before_id: the nearest newer ones, shown newest first
    try (Connection c = db.connection()) {
      if (cursor != null) {
        Long createdAt = null;
        try (PreparedStatement s = c.prepareStatement("SELECT created_at FROM jobs WHERE id = ?")) {
          s.setString(1, cursor);
          try (ResultSet rs = s.executeQuery()) {
            if (rs.next()) {
              createdAt = rs.getLong(1);
            }
          }
        }
        if (createdAt == null) {
          return Optional.empty();
        }
        String cmp = newer ? ">" : "<";
        sql.append(" AND (created_at ").append(cmp).append(" ? OR (created_at = ? AND id ").append(cmp).append(" ?))");
        args.add(createdAt);
        args.add(createdAt);
        args.add(cursor);
      }
      sql.append(newer ? " ORDER BY created_at, id LIMIT ?" : " ORDER BY created_at DESC, id DESC LIMIT ?");
      args.add(limit + 1);
      try (PreparedStatement s = c.prepareStatement(sql.toString())) {
        for (int i = 0; i < args.size(); i++) {
          s.setObject(i + 1, args.get(i));
        }
        List<Job> jobs = new ArrayList<>(limit + 1);
        try (ResultSet rs = s.executeQuery()) {
          while (rs.next()) {
            jobs.add(readListed(rs));
          }
        }
        boolean more = jobs.size() > limit;
        List<Job> page = more ? jobs.subList(0, limit) : jobs; // the nearest to the cursor
        return Optional.of(new Page(newer ? page.reversed() : page, more));
      }
    } catch (SQLException e) {
      throw new StoreException("cannot list jobs", e);
    }
  }

  private static Job readListed(ResultSet rs) throws SQLException {
    int status = rs.getInt("result_status");
    JobResult result = rs.wasNull() ? null : new JobResult(status, Map.of(), new byte[0]);
    return new Job(rs.getString("id"), rs.getString("tenant"), rs.getString("feature"), rs.getString("alias"),
        rs.getInt("priority"), rs.getString("batch_id"), rs.getString("custom_id"),
        new JobRequest(rs.getString("request_path"), rs.getString("request_query"), Map.of(), new byte[0]),
        null, JobState.ofWire(rs.getString("state")), rs.getInt("attempts"),
        Instant.ofEpochMilli(rs.getLong("created_at")), Instant.ofEpochMilli(rs.getLong("expires_at")), result,
        rs.getString("last_error"), Instant.ofEpochMilli(rs.getLong("run_after")));
  }

  /**
   * What an operator's cancel came to.
   *
   * @param job the job after the cancel (for {@link Kind#NOT_FOUND}: null)
   * @param was its state before ({@link JobState#CANCELLED} when it was cancelled already)
   */
  public record Cancel(Kind kind, Job job, JobState was) {
    /** {@code CANCELLED}: this call ended it; {@code ALREADY_CANCELLED}; {@code ENDED}: it had ended otherwise. */
    public enum Kind { CANCELLED, ALREADY_CANCELLED, ENDED, NOT_FOUND }
  }

  /**
   * Ends job {@code id} {@code cancelled}, whatever its tenant — from {@code queued}, or from {@code
   * running}: then its claim is void, so nothing its current try returns is recorded ({@link
   * #finish} and {@link #retryLater} check the claim) and its worker's next renewal finds the claim
   * lost and stops the try. Its sealed key is erased, its callback (if its feature has one) owed.
   * A job already cancelled is left as it is; one that ended otherwise too ({@link Cancel.Kind#ENDED}).
   */
  public Cancel cancel(String id, Instant now) {
    for (int tries = 0; ; tries++) { // its state may move between the read and the update: read again
      Optional<Job> before = anyTenantsJob(id);
      if (before.isEmpty()) {
        return new Cancel(Cancel.Kind.NOT_FOUND, null, null);
      }
      JobState was = before.get().state();
      if (was.ended()) {
        return new Cancel(was == JobState.CANCELLED ? Cancel.Kind.ALREADY_CANCELLED : Cancel.Kind.ENDED,
            before.get(), was);
      }
      // milliseconds, as created_at and expires_at are stored and shown (a wall clock may carry nanoseconds)
      String why = "cancelled by an operator at " + now.truncatedTo(ChronoUnit.MILLIS) + " (POST /admin/jobs/" + id
          + "/cancel)"
          + (was == JobState.RUNNING ? " while try " + before.get().attempts()
          + " ran: the try was stopped and nothing it returned was kept" : "");
      String sql = "UPDATE jobs SET state = 'cancelled', finished_at = ?, updated_at = ?, sealed_key = NULL, "
          + "lease_until = NULL, last_error = ?, "
          + "callback_state = CASE WHEN callback_url IS NULL THEN NULL ELSE 'pending' END "
          + "WHERE id = ? AND state = ? AND attempts = ?";
      boolean updated;
      try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(sql)) {
        s.setLong(1, now.toEpochMilli());
        s.setLong(2, now.toEpochMilli());
        s.setString(3, why);
        s.setString(4, id);
        s.setString(5, was.wire());
        s.setInt(6, before.get().attempts());
        updated = s.executeUpdate() == 1;
      } catch (SQLException e) {
        throw new StoreException("cannot cancel " + id, e);
      }
      if (updated) { // read once the connection is back: SQLite's is the only one
        return new Cancel(Cancel.Kind.CANCELLED, anyTenantsJob(id).orElseThrow(), was);
      }
      if (tries >= 10) {
        throw new IllegalStateException("job " + id + " kept changing while being cancelled");
      }
    }
  }

  /** The states of the jobs {@code ids} that exist (any tenant's), by id. */
  public Map<String, JobState> states(Collection<String> ids) {
    if (ids.isEmpty()) {
      return Map.of();
    }
    String sql = "SELECT id, state FROM jobs WHERE id IN (" + "?,".repeat(ids.size() - 1) + "?)";
    try (Connection c = db.connection(); PreparedStatement s = c.prepareStatement(sql)) {
      int i = 1;
      for (String id : ids) {
        s.setString(i++, id);
      }
      Map<String, JobState> out = new java.util.HashMap<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), JobState.ofWire(rs.getString(2)));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new StoreException("cannot read the states of " + ids.size() + " jobs", e);
    }
  }

  static Job read(ResultSet rs) throws SQLException {
    int status = rs.getInt("result_status");
    JobResult result = rs.wasNull() ? null
        : new JobResult(status, headers(rs.getString("result_headers")), rs.getBytes("result_body"));
    return new Job(rs.getString("id"), rs.getString("tenant"), rs.getString("feature"), rs.getString("alias"),
        rs.getInt("priority"), rs.getString("batch_id"), rs.getString("custom_id"),
        new JobRequest(rs.getString("request_path"), rs.getString("request_query"),
            headers(rs.getString("request_headers")), rs.getBytes("request_body")),
        rs.getBytes("sealed_key"), JobState.ofWire(rs.getString("state")), rs.getInt("attempts"),
        Instant.ofEpochMilli(rs.getLong("created_at")), Instant.ofEpochMilli(rs.getLong("expires_at")), result,
        rs.getString("last_error"), Instant.ofEpochMilli(rs.getLong("run_after")));
  }

  public static String json(Map<String, List<String>> headers) {
    try {
      return Json.MAPPER.writeValueAsString(headers);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  public static Map<String, List<String>> headers(String json) {
    if (json == null) {
      return Map.of();
    }
    try {
      return Json.MAPPER.readValue(json, HEADERS);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored headers are not JSON", e);
    }
  }

}
