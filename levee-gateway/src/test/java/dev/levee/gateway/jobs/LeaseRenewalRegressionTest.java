package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A job that runs longer than its lease keeps it: the workers renew the lease while it runs, so
 * the recovery pass does not queue it again and no other worker runs it a second time. Before the
 * fix the lease was never renewed: a slow upstream call (retries, fallbacks, cooldowns) outlived
 * it, the job was recovered and claimed again while the first run was still going — a duplicate
 * upstream call without any crash ({@code KillNineTest} saw 3 calls where at most 2 are allowed).
 */
class LeaseRenewalRegressionTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant FAR = T0.plus(Duration.ofHours(24));
  private static final Duration LEASE = Duration.ofSeconds(3);

  private final List<QueueConfig> configs = new ArrayList<>();
  private final List<Database> open = new ArrayList<>();
  /** Lets the slow job end: released by the test, and at clean-up should an assertion fail first. */
  private final Semaphore release = new Semaphore(0);
  private JobWorkers workers;

  @AfterEach
  void cleanUp() {
    release.release();
    if (workers != null) {
      workers.close();
    }
    open.forEach(Database::close);
    configs.forEach(TestStores::drop);
  }

  private QueueConfig config(Database.Dialect dialect) {
    QueueConfig base = TestStores.of(dialect);
    QueueConfig config = new QueueConfig(base.store(), base.schema(), base.folder(), 4, null, null, LEASE, null,
        base.secret(), null, null, null, null);
    configs.add(config);
    return config;
  }

  private JobStore store(QueueConfig config) {
    Database db = Database.open(config);
    open.add(db);
    return new JobStore(db);
  }

  private static NewJob job(String text) {
    return new NewJob("t", "default", "emu-ok", 5, null, new JobRequest("/v1/messages", null, Map.of(),
        ("{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}")
            .getBytes(StandardCharsets.UTF_8)), null);
  }

  private static JobResult ok() {
    return new JobResult(200, Map.of(), "{}".getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aJobThatOutlivesItsLeaseIsNotClaimedAgainWhileItRuns(Database.Dialect dialect) throws Exception {
    QueueConfig config = config(dialect);
    JobStore store = store(config);
    ManualClock clock = new ManualClock();
    long start = clock.nanos();
    InstantSource wall = () -> T0.plusNanos(clock.nanos() - start);
    String id = store.enqueue(job("slow"), T0, FAR);
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch running = new CountDownLatch(1);
    workers = new JobWorkers(store, (request, key, lost, trial) -> {
      calls.incrementAndGet();
      running.countDown();
      release.acquireUninterruptibly(); // the upstream call: retries, fallbacks, cooldowns…
      return new JobExecutor.Finished(ok());
    }, () -> PauseGate.Paused.NONE, KeySeal.of(config.secret()), wall, config, clock::nanos, clock).start();
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

    for (int second = 1; second <= 3 * LEASE.toSeconds(); second++) { // three leases long
      clock.advance(Duration.ofSeconds(1)); // the heartbeat (every lease/3) runs in here
      Instant now = wall.instant();
      assertThat(store.recover(now, false)).as("recovered after %d s", second).isZero();
      assertThat(store.claim(1, now, now.plus(LEASE), Set.of(), Set.of()))
          .as("claimed again by another worker after %d s", second).isEmpty();
      assertThat(store.job("t", id).orElseThrow().state()).isEqualTo(JobState.RUNNING);
    }

    release.release();
    workers.close(); // waits for the running job to record its result
    Job done = store.job("t", id).orElseThrow();
    assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(done.attempts()).as("claimed once").isEqualTo(1);
    assertThat(calls.get()).as("one upstream call").isEqualTo(1);
    assertThat(workers.finished()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aRenewalOnlyExtendsClaimsStillHeldAndNeverTakesAJobBack(Database.Dialect dialect) {
    JobStore store = store(config(dialect));
    String finishedId = store.enqueue(job("finished"), T0, FAR);
    String lostId = store.enqueue(job("lost"), T0.plusMillis(1), FAR);
    String heldId = store.enqueue(job("held"), T0.plusMillis(2), FAR);
    List<Job> claimed = store.claim(3, T0.plusMillis(2), T0.plus(LEASE), Set.of(), Set.of());
    Job finished = claimed.stream().filter(j -> j.id().equals(finishedId)).findFirst().orElseThrow();
    Job lost = claimed.stream().filter(j -> j.id().equals(lostId)).findFirst().orElseThrow();
    assertThat(store.finish(finished, ok(), true, null, T0.plusSeconds(1))).isTrue();
    assertThat(store.renew(List.of(lost), T0.plusSeconds(2).plus(LEASE), T0.plusSeconds(2))).isEqualTo(1);
    // then this worker stalls past every lease: both unfinished jobs are queued again, and another
    // worker claims "lost" (the older one)
    Instant late = T0.plusSeconds(10);
    assertThat(store.recover(late, false)).isEqualTo(2);
    Job retaken = store.claim(1, late, late.plus(LEASE), Set.of(), Set.of()).getFirst();
    assertThat(retaken.id()).isEqualTo(lostId);

    Instant now = late.plusSeconds(1);
    int renewed = store.renew(claimed, now.plus(LEASE), now);

    assertThat(renewed).as("finished, taken over or requeued: none is ours any more").isZero();
    assertThat(store.job("t", finishedId).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
    Job other = store.job("t", retaken.id()).orElseThrow();
    assertThat(other.state()).isEqualTo(JobState.RUNNING);
    assertThat(other.attempts()).isEqualTo(2);
    assertThat(store.job("t", heldId).orElseThrow().state()).as("not resurrected to running")
        .isEqualTo(JobState.QUEUED);
    // the stale claim cannot record a result; the current one can, once
    Job stale = lost;
    assertThat(store.finish(stale, ok(), true, null, now)).isFalse();
    assertThat(store.retryLater(stale, "late", now, now)).isFalse();
    assertThat(store.renew(List.of(retaken), now.plus(LEASE), now)).isEqualTo(1);
    assertThat(store.finish(retaken, ok(), true, null, now)).isTrue();
    assertThat(store.finish(retaken, ok(), true, null, now)).isFalse();
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void oneRenewalCoversMoreJobsThanOneStatementCarries(Database.Dialect dialect) {
    JobStore store = store(config(dialect));
    for (int i = 0; i < 501; i++) {
      store.enqueue(job("j" + i), T0, FAR);
    }
    List<Job> claimed = store.claim(501, T0, T0.plus(LEASE), Set.of(), Set.of());
    assertThat(claimed).hasSize(501);

    Instant now = T0.plusSeconds(2);
    assertThat(store.renew(claimed, now.plus(LEASE), now)).isEqualTo(501);
    assertThat(store.recover(T0.plus(LEASE), false)).as("every lease was extended").isZero();
  }
}
