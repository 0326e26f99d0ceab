package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression: at shutdown the pool gave running jobs a fixed 5 s, whatever {@code
 * server.shutdown-grace} said, and left a job still running after that {@code running} in the
 * store with its run going on while the store closed under it: the job came back only through
 * crash recovery (a lease run out, or the next start of an embedded store), and nothing said why.
 * The pool now stops claiming first, gives running jobs the grace it is given, and hands back
 * any still running — queued again at once with {@code last_error} {@code "shutdown: …"}, its run
 * stopped ({@link JobWorkers#SHUTDOWN}) and the run's late outcome not recorded. Jobs not started
 * stay queued, untouched.
 */
class ShutdownHandsBackRunningJobsRegressionTest {

  private final QueueConfig config = TestStores.sqlite(); // 4 workers
  private final Database db = Database.open(config);
  private final JobStore store = new JobStore(db);
  private JobWorkers workers;

  @AfterEach
  void close() {
    if (workers != null) {
      workers.close(Duration.ZERO);
    }
    db.close();
    TestStores.drop(config);
  }

  private String enqueue(int n) {
    JobRequest request = new JobRequest("/v1/messages", null, Map.of(),
        ("{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"" + n + "\"}]}")
            .getBytes(StandardCharsets.UTF_8));
    var now = InstantSource.system().instant();
    return store.enqueue(new NewJob("t", "default", "emu-ok", 5, null, request, null), now, now.plusSeconds(3600));
  }

  private Job job(String id) {
    return store.anyTenantsJob(id).orElseThrow();
  }

  private static JobExecutor.Finished ok() {
    return new JobExecutor.Finished(new JobResult(200, Map.of(), "{}".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void jobsStillRunningAfterTheGraceAreQueuedAgainAndTheRestStayQueued() throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      ids.add(enqueue(i));
    }
    CountDownLatch allRunning = new CountDownLatch(config.workers());
    AtomicInteger runs = new AtomicInteger();
    List<String> stoppedAs = Collections.synchronizedList(new ArrayList<>());
    workers = new JobWorkers(store, (request, key, lost, trial) -> {
      runs.incrementAndGet();
      Semaphore stopped = new Semaphore(0);
      lost.register(stopped::release);
      allRunning.countDown();
      stopped.acquireUninterruptibly(); // a long call: it ends only when its run is stopped
      stoppedAs.add(lost.reason());
      return ok(); // a late answer: must not be recorded over the hand-back
    }, () -> PauseGate.Paused.NONE, KeySeal.of(config.secret()), InstantSource.system(), config).start();
    assertThat(allRunning.await(10, TimeUnit.SECONDS)).isTrue();

    workers.close(Duration.ZERO);

    assertThat(runs.get()).as("no job started after the shutdown began").isEqualTo(config.workers());
    assertThat(stoppedAs).hasSize(config.workers()).containsOnly(JobWorkers.SHUTDOWN);
    List<Job> jobs = ids.stream().map(this::job).toList();
    assertThat(jobs).extracting(Job::state).containsOnly(JobState.QUEUED);
    assertThat(jobs).extracting(Job::result).containsOnlyNulls();
    assertThat(jobs.stream().filter(j -> j.attempts() == 1)).as("the ones that ran")
        .hasSize(config.workers())
        .allSatisfy(j -> assertThat(j.lastError()).startsWith("shutdown: "));
    assertThat(jobs.stream().filter(j -> j.attempts() == 0)).as("queued, never started: untouched")
        .hasSize(6 - config.workers())
        .allSatisfy(j -> assertThat(j.lastError()).isNull());
  }

  @Test
  void aJobThatFinishesWithinTheGraceIsRecorded() throws Exception {
    String id = enqueue(1);
    CountDownLatch started = new CountDownLatch(1);
    Semaphore release = new Semaphore(0);
    AtomicReference<String> stoppedAs = new AtomicReference<>("not stopped");
    workers = new JobWorkers(store, (request, key, lost, trial) -> {
      started.countDown();
      release.acquireUninterruptibly();
      if (lost.isCancelled()) {
        stoppedAs.set(lost.reason());
      }
      return ok();
    }, () -> PauseGate.Paused.NONE, KeySeal.of(config.secret()), InstantSource.system(), config).start();
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

    try (ExecutorService closing = Executors.newVirtualThreadPerTaskExecutor()) {
      CompletableFuture<Void> closed = CompletableFuture.runAsync(() -> workers.close(Duration.ofMinutes(1)), closing);
      release.release(); // the job ends within the grace, whether close is already waiting or not
      closed.get(30, TimeUnit.SECONDS);
    }

    assertThat(job(id).state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(job(id).lastError()).isNull();
    assertThat(stoppedAs.get()).isEqualTo("not stopped");
  }
}
