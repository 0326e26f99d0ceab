package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The worker pool over an embedded store, with a scripted executor: cap, pause and resume, keys, retries. */
class JobWorkersTest {

  private final QueueConfig config = TestStores.sqlite();
  private final Database db = Database.open(config);
  private final JobStore store = new JobStore(db);
  private final KeySeal seal = KeySeal.of(config.secret());
  private JobWorkers workers;

  @AfterEach
  void close() {
    if (workers != null) {
      workers.close();
    }
    db.close();
    TestStores.drop(config);
  }

  private String enqueue(String alias, byte[] sealedKey) {
    JobRequest request = new JobRequest("/v1/messages", null, Map.of(),
        ("{\"model\":\"" + alias + "\",\"max_tokens\":5,\"messages\":[]}").getBytes(StandardCharsets.UTF_8));
    var now = InstantSource.system().instant();
    return store.enqueue(new NewJob("t", "default", alias, 5, null, request, sealedKey), now, now.plusSeconds(3600));
  }

  private static JobExecutor.Finished ok() {
    return new JobExecutor.Finished(new JobResult(200, Map.of(), "{}".getBytes(StandardCharsets.UTF_8)));
  }

  private JobWorkers start(JobExecutor executor, java.util.function.Supplier<PauseGate.Paused> gate) {
    workers = new JobWorkers(store, executor, gate, seal, InstantSource.system(), config).start();
    return workers;
  }

  /**
   * Newcomer trial, session 11: a job's runs were logged {@code ok job} / {@code exhausted job}
   * without its id, so the 503 a client saw could not be traced to the run that answered it. The
   * workers hand the executor the job's id as {@code x-levee-job} (replacing any such header the
   * client sent; Levee's headers never reach the upstream), and the access record names it.
   */
  @Test
  void theExecutorIsToldWhichJobItRuns() throws Exception {
    JobRequest spoofed = new JobRequest("/v1/messages", null, Map.of("x-levee-job", java.util.List.of("job_forged")),
        "{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[]}".getBytes(StandardCharsets.UTF_8));
    var now = InstantSource.system().instant();
    String id = store.enqueue(new NewJob("t", "default", "emu-ok", 5, null, spoofed, null), now, now.plusSeconds(3600));
    AtomicReference<Object> told = new AtomicReference<>();
    CountDownLatch ran = new CountDownLatch(1);
    start((request, key, lost, trial) -> {
      told.set(request.headers().get("x-levee-job"));
      ran.countDown();
      return ok();
    }, () -> PauseGate.Paused.NONE);

    assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(told.get()).isEqualTo(java.util.List.of(id));
  }

  /**
   * Review, session 22: the idempotency-key sweep moved off the request path into the workers'
   * upkeep. A chore given to the pool runs with its upkeep (the first at its first poll), and one
   * that throws does not keep the next from running.
   */
  @Test
  void choresRunWithTheUpkeepAndAFailingOneStopsNoOther() throws Exception {
    workers = new JobWorkers(store, (request, key, lost, trial) -> ok(), () -> PauseGate.Paused.NONE, seal,
        InstantSource.system(), config);
    CountDownLatch kept = new CountDownLatch(1);
    workers.alsoKeepUp((nanos, budget) -> {
      throw new IllegalStateException("the store is away");
    });
    workers.alsoKeepUp((nanos, budget) -> kept.countDown());
    workers.start();

    assertThat(kept.await(10, TimeUnit.SECONDS)).as("the second chore ran").isTrue();
  }

  @Test
  void neverRunsMoreJobsAtOnceThanTheCap() throws Exception {
    for (int i = 0; i < 20; i++) {
      enqueue("emu-ok", null);
    }
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    Semaphore release = new Semaphore(0);
    CountDownLatch done = new CountDownLatch(20);
    CountDownLatch full = new CountDownLatch(config.workers());
    start((request, key, lost, trial) -> {
      most.accumulateAndGet(running.incrementAndGet(), Math::max);
      full.countDown();
      release.acquireUninterruptibly();
      running.decrementAndGet();
      done.countDown();
      return ok();
    }, () -> PauseGate.Paused.NONE);

    assertThat(full.await(10, TimeUnit.SECONDS)).isTrue();
    release.release(20);
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();

    assertThat(most.get()).isEqualTo(config.workers());
  }

  @Test
  void whileAnInteractiveRequestIsInFlightOneJobRunsAndTheRestStartWhenTrafficIsGone() throws Exception {
    for (int i = 0; i < 10; i++) {
      enqueue("emu-ok", null);
    }
    AtomicLong nanos = new AtomicLong();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    Semaphore release = new Semaphore(0);
    CountDownLatch first = new CountDownLatch(1);
    CountDownLatch full = new CountDownLatch(config.workers());
    CountDownLatch looked = new CountDownLatch(5);
    workers = new JobWorkers(store, (request, key, lost, trial) -> {
      most.accumulateAndGet(running.incrementAndGet(), Math::max);
      first.countDown();
      full.countDown();
      release.acquireUninterruptibly();
      running.decrementAndGet();
      return ok();
    }, () -> PauseGate.Paused.NONE, seal, InstantSource.system(), config, () -> {
      if (running.get() > 0) {
        looked.countDown(); // the dispatcher read the clock while a job ran
      }
      return nanos.get();
    });
    workers.traffic().enter(); // a client request starts before the workers do
    nanos.addAndGet(Duration.ofMillis(6).toNanos()); // past yield-for, still in flight
    workers.start();

    assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
    workers.wake();
    assertThat(looked.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(most.get()).as("sharing with a client request: one job at a time").isEqualTo(1);

    workers.traffic().exit();
    nanos.addAndGet(Duration.ofSeconds(1).toNanos()); // shared-for has passed
    workers.wake();
    assertThat(full.await(10, TimeUnit.SECONDS)).as("no traffic: every slot").isTrue();
    assertThat(most.get()).isEqualTo(config.workers());
    release.release(10);
  }

  @Test
  void aHeldPoolStartsNothingUntilItIsLetGo() throws Exception {
    for (int i = 0; i < 3; i++) {
      enqueue("emu-ok", null);
    }
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch ran = new CountDownLatch(3);
    CountDownLatch looked = new CountDownLatch(6);
    workers = new JobWorkers(store, (request, key, lost, trial) -> {
      calls.incrementAndGet();
      ran.countDown();
      return ok();
    }, () -> PauseGate.Paused.NONE, seal, InstantSource.system(), config, () -> {
      looked.countDown(); // the dispatcher read the clock: it went round its loop
      return 0L;
    });
    workers.hold(true);
    workers.start();
    for (int i = 0; i < 3; i++) {
      workers.wake();
    }
    assertThat(looked.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(calls.get()).isZero();

    workers.hold(false);
    assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void pausedWorkWaitsAndResumesWhenTheGateOpens() throws Exception {
    String id = enqueue("smart", null);
    AtomicReference<PauseGate.Paused> paused = new AtomicReference<>(new PauseGate.Paused(Set.of("smart"), Set.of()));
    CountDownLatch looked = new CountDownLatch(3);
    CountDownLatch ran = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    start((request, key, lost, trial) -> {
      calls.incrementAndGet();
      ran.countDown();
      return ok();
    }, () -> {
      looked.countDown();
      return paused.get();
    });

    assertThat(looked.await(10, TimeUnit.SECONDS)).isTrue(); // the dispatcher asked three times
    assertThat(calls.get()).isZero();
    assertThat(store.job("t", id).orElseThrow().state()).isEqualTo(JobState.QUEUED);

    paused.set(PauseGate.Paused.NONE);
    workers.wake();
    assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void theExecutorGetsTheOpenedKeyAndAFailedTryWaitsForTheRetryDelay() throws Exception {
    String id = enqueue("emu-ok", seal.seal("sk-client"));
    AtomicReference<String> seen = new AtomicReference<>();
    CountDownLatch ran = new CountDownLatch(1);
    start((request, key, lost, trial) -> {
      seen.set(key);
      ran.countDown();
      return new JobExecutor.RetryLater("every target failed", Duration.ofMillis(1));
    }, () -> PauseGate.Paused.NONE);

    assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    workers.close(); // the try has been recorded once the pool has stopped
    Job job = store.job("t", id).orElseThrow();

    assertThat(seen.get()).isEqualTo("sk-client");
    assertThat(job.state()).isEqualTo(JobState.QUEUED);
    assertThat(job.attempts()).isEqualTo(1);
    assertThat(job.lastError()).isEqualTo("every target failed");
    assertThat(store.claim(1, InstantSource.system().instant(), InstantSource.system().instant(), Set.of(), Set.of()))
        .as("it waits retry-delay (5 s by default), not the 1 ms the upstream named").isEmpty();
  }

  @Test
  void aKeySealedUnderAnotherSecretFailsTheJobInsteadOfRetryingIt() throws Exception {
    KeySeal other = KeySeal.of("AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=");
    String id = enqueue("emu-ok", other.seal("sk-client"));
    AtomicInteger calls = new AtomicInteger();
    start((request, key, lost, trial) -> {
      calls.incrementAndGet();
      return ok();
    }, () -> PauseGate.Paused.NONE);

    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (store.job("t", id).orElseThrow().state() == JobState.QUEUED
        || store.job("t", id).orElseThrow().state() == JobState.RUNNING) {
      assertThat(System.nanoTime()).as("the job ends").isLessThan(until);
      Thread.sleep(10); // polling the store the worker writes to
    }
    Job job = store.job("t", id).orElseThrow();

    assertThat(job.state()).isEqualTo(JobState.FAILED);
    assertThat(job.result().status()).isEqualTo(500);
    assertThat(job.sealedKey()).isNull();
    assertThat(calls.get()).isZero();
  }
}
