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
 * A job whose gateway died mid-run ({@code kill -9}) is run again about one lease after its last
 * renewal — a minute with the default {@code queue.lease} — while a job whose worker keeps renewing
 * is never taken from it, however long it runs. Before (newcomer trial): the default lease was
 * 15 minutes, so a restarted gateway on PostgreSQL left its own interrupted jobs {@code running}
 * for a quarter of an hour. A worker that finds its claim lost at a renewal stops the run.
 *
 * <p>Replica A is a real {@link JobWorkers} whose heartbeat runs on its own {@link ManualClock}:
 * advancing it with the world's clock is A alive; advancing only the world's is A dead (its
 * heartbeat, like a SIGKILLed process's, never fires again). "Replica B" is the store's own claim
 * and recovery, as another gateway's dispatcher calls them. Both on SQLite and PostgreSQL.
 */
class DeadReplicaJobReclaimedWithinALeaseRegressionTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant FAR = T0.plus(Duration.ofHours(24));

  private final List<QueueConfig> configs = new ArrayList<>();
  private final List<Database> open = new ArrayList<>();
  /** Lets A's job end: released by the test, and at clean-up should an assertion fail first. */
  private final Semaphore release = new Semaphore(0);
  /** The world's time: every gateway's wall clock. */
  private final ManualClock world = new ManualClock();
  private final long start = world.nanos();
  private final InstantSource wall = () -> T0.plusNanos(world.nanos() - start);
  /** Replica A's own time: its heartbeat and pacing. Frozen once A is dead. */
  private final ManualClock a = new ManualClock();
  private final AtomicInteger calls = new AtomicInteger();
  private final CountDownLatch running = new CountDownLatch(1);
  private JobWorkers replicaA;

  @AfterEach
  void cleanUp() {
    release.release(10);
    if (replicaA != null) {
      replicaA.close();
    }
    open.forEach(Database::close);
    configs.forEach(TestStores::drop);
  }

  /** The test store with every queue default, the lease included. */
  private JobStore store(Database.Dialect dialect) {
    QueueConfig config = TestStores.of(dialect);
    configs.add(config);
    assertThat(config.lease()).as("the default lease").isEqualTo(QueueConfig.DEFAULT_LEASE);
    Database db = Database.open(config);
    open.add(db);
    return new JobStore(db);
  }

  private static NewJob job() {
    return new NewJob("t", "default", "emu-ok", 5, null, new JobRequest("/v1/messages", null, Map.of(),
        "{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
            .getBytes(StandardCharsets.UTF_8)), null);
  }

  private static JobResult answer(String by) {
    return new JobResult(200, Map.of(), ("{\"by\":\"" + by + "\"}").getBytes(StandardCharsets.UTF_8));
  }

  /** Starts replica A with {@code executor}, waits until it runs the job, and keeps it from claiming more. */
  private void startA(JobStore store, JobExecutor executor) throws InterruptedException {
    QueueConfig config = configs.getLast();
    replicaA = new JobWorkers(store, executor, () -> PauseGate.Paused.NONE, KeySeal.of(config.secret()), wall,
        config, a::nanos, a).start();
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
    replicaA.hold(true); // A runs this one job and claims no other: what B does is the test's
  }

  private void bothLive(Duration d) {
    world.advance(d);
    a.advance(d); // A's heartbeat renews in here
  }

  /** Whether another gateway can take the job now: its recovery pass, then its claim. */
  private List<Job> replicaBTakes(JobStore store) {
    Instant now = wall.instant();
    store.recover(now, false);
    return store.claim(1, now, now.plus(QueueConfig.DEFAULT_LEASE), Set.of(), Set.of());
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aDeadReplicasJobRunsAgainAboutOneLeaseAfterItsLastRenewalAndALiveOneIsNeverTaken(Database.Dialect dialect)
      throws Exception {
    JobStore store = store(dialect);
    String id = store.enqueue(job(), T0, FAR);
    startA(store, (request, key, lost, trial) -> {
      calls.incrementAndGet();
      running.countDown();
      release.acquireUninterruptibly(); // a long stream: minutes
      return new JobExecutor.Finished(answer("a"));
    });

    for (int s = 5; s <= 600; s += 5) { // ten minutes alive, ten leases: renewed every 20 s
      bothLive(Duration.ofSeconds(5));
      assertThat(replicaBTakes(store)).as("taken from a live worker after %d s", s).isEmpty();
    }
    // A dies (kill -9): its heartbeat stops; its last renewal was at most 20 s ago
    world.advance(Duration.ofSeconds(39));
    assertThat(replicaBTakes(store)).as("40 s after the last renewal at most: still A's").isEmpty();
    world.advance(Duration.ofSeconds(22)); // 61 s after A's death

    List<Job> taken = replicaBTakes(store);

    assertThat(taken).as("a dead replica's job is run again within about a minute").hasSize(1);
    Job b = taken.getFirst();
    assertThat(b.id()).isEqualTo(id);
    assertThat(b.attempts()).isEqualTo(2);
    assertThat(store.finish(b, answer("b"), true, null, wall.instant())).isTrue();
    // had A only stalled, its late answer is not recorded: one result per job
    release.release();
    replicaA.close();
    Job done = store.job("t", id).orElseThrow();
    assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(new String(done.result().body(), StandardCharsets.UTF_8)).isEqualTo("{\"by\":\"b\"}");
    assertThat(replicaA.finished()).isZero();
    assertThat(calls.get()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aWorkerThatFindsItsClaimLostAtARenewalStopsTheRunAndRecordsNothing(Database.Dialect dialect)
      throws Exception {
    JobStore store = store(dialect);
    String id = store.enqueue(job(), T0, FAR);
    CountDownLatch stopped = new CountDownLatch(1);
    startA(store, (request, key, lost, trial) -> {
      calls.incrementAndGet();
      lost.register(stopped::countDown); // the upstream call: closed when the claim is lost
      running.countDown();
      try {
        stopped.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return lost.isCancelled() ? new JobExecutor.RetryLater("cancelled", null)
          : new JobExecutor.Finished(answer("a"));
    });
    bothLive(Duration.ofSeconds(30));
    // A stalls (the database unreachable, a long pause) past its lease; B takes the job over
    world.advance(Duration.ofSeconds(61));
    Job b = replicaBTakes(store).getFirst();
    assertThat(stopped.getCount()).as("not stopped before a renewal finds the claim lost").isEqualTo(1);

    a.advance(Duration.ofSeconds(20)); // A's next heartbeat: its renewal finds the claim gone

    assertThat(stopped.getCount()).as("the run was stopped").isZero();
    replicaA.close(); // waits for A's run to end; its retryLater must not requeue B's job
    Job now = store.job("t", id).orElseThrow();
    assertThat(now.state()).as("still B's").isEqualTo(JobState.RUNNING);
    assertThat(now.attempts()).isEqualTo(2);
    assertThat(store.finish(b, answer("b"), true, null, wall.instant())).isTrue();
    assertThat(new String(store.job("t", id).orElseThrow().result().body(), StandardCharsets.UTF_8))
        .isEqualTo("{\"by\":\"b\"}");
    assertThat(calls.get()).isEqualTo(1);
  }
}
