package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Review: {@link JobStore#recoverOwn} trusted {@code queue.replica-id} to be unique, so a second
 * live gateway configured with the same id queued again, at its start-up, the jobs the first one
 * was running, and they ran twice. A gateway now takes its id first ({@link ReplicaLease}), and its
 * workers stay off while another live process holds it; a cleanly stopped predecessor releases
 * it, and a crashed one's hold is taken over once it has missed a heartbeat. Waiting to tell never
 * holds up {@link JobWorkers#start} (the gateway serves meanwhile). Against PostgreSQL
 * (127.0.0.1:5432, database {@code test}), real time: a 3 s lease beats every second.
 */
class DuplicateReplicaIdRegressionTest {

  private static final Duration LEASE = Duration.ofSeconds(3);

  private final QueueConfig base = TestStores.postgres();
  private final QueueConfig config = new QueueConfig(base.store(), base.schema(), null, 4, Duration.ofMillis(20), null,
      LEASE, null, base.secret(), null, null, null, null, "gw-1");
  private final List<AutoCloseable> open = new ArrayList<>();
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void cleanUp() throws Exception {
    release.countDown();
    for (AutoCloseable c : open.reversed()) {
      c.close();
    }
    TestStores.drop(config);
  }

  private JobStore store() {
    Database db = Database.open(config);
    open.add(db);
    return new JobStore(db, "gw-1");
  }

  private JobWorkers workers(JobExecutor executor) {
    JobWorkers workers = new JobWorkers(store(), executor, () -> PauseGate.Paused.NONE, KeySeal.of(config.secret()),
        InstantSource.system(), config);
    open.add(workers);
    return workers;
  }

  private static NewJob job() {
    return new NewJob("t", "default", "emu-ok", 5, null, new JobRequest("/v1/messages", null, Map.of(),
        "{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
            .getBytes(StandardCharsets.UTF_8)), null);
  }

  private static JobExecutor.Finished ok() {
    return new JobExecutor.Finished(new JobResult(200, Map.of(), "{}".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aSecondLiveGatewayWithTheSameIdRunsNoJobAndLeavesTheFirstsRunningJobAlone() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    JobWorkers first = workers((request, key, lost, trial) -> {
      running.countDown();
      try {
        release.await(); // the job runs until the test ends
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return ok();
    }).start();
    JobStore jobs = store();
    Instant now = InstantSource.system().instant();
    String id = jobs.enqueue(job(), now, now.plusSeconds(3600));
    first.wake();
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

    AtomicInteger secondRan = new AtomicInteger();
    JobWorkers second = workers((request, key, lost, trial) -> {
      secondRan.incrementAndGet();
      return ok();
    });

    long start = System.nanoTime();
    second.start();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("start() does not wait to tell").isLessThan(LEASE.dividedBy(2));

    assertThatThrownBy(() -> second.started().get(20, TimeUnit.SECONDS))
        .as("old: it started and queued the first gateway's running job again")
        .hasCauseInstanceOf(IllegalStateException.class).hasMessageContaining("queue.replica-id gw-1 is held by another live");
    assertThat(jobs.job("t", id).orElseThrow().state()).isEqualTo(JobState.RUNNING);
    assertThat(secondRan).hasValue(0);
  }

  @Test
  void aCleanlyStoppedPredecessorsIdIsTakenAtOnce() throws Exception {
    workers((request, key, lost, trial) -> ok()).start().close();
    long start = System.nanoTime();

    JobWorkers workers = workers((request, key, lost, trial) -> ok()).start();

    assertThat(workers.started()).as("draining as start() returns").isCompleted();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("no wait for a released id")
        .isLessThan(LEASE.dividedBy(2));
  }

  @Test
  void aCrashedPredecessorsIdIsTakenOverOnceItMissedAHeartbeat() throws Exception {
    new ReplicaLease(store().database(), "gw-1").acquire(InstantSource.system(), LEASE.dividedBy(3), Thread::sleep); // never beats again

    long start = System.nanoTime();

    JobWorkers workers = workers((request, key, lost, trial) -> ok()).start();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("start() does not wait to tell").isLessThan(LEASE.dividedBy(2));
    workers.started().get(20, TimeUnit.SECONDS); // taken over: it drains

    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("it waited to see the holder was silent")
        .isGreaterThanOrEqualTo(LEASE.dividedBy(2));
  }
}
