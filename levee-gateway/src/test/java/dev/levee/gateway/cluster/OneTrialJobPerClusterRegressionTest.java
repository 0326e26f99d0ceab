package dev.levee.gateway.cluster;

import static dev.levee.gateway.cluster.RedisFixture.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.gateway.jobs.Database;
import dev.levee.gateway.jobs.JobRequest;
import dev.levee.gateway.jobs.JobStore;
import dev.levee.gateway.jobs.JobWorkers;
import dev.levee.gateway.jobs.KeySeal;
import dev.levee.gateway.jobs.NewJob;
import dev.levee.gateway.jobs.PauseGate;
import dev.levee.gateway.jobs.QueueConfig;
import dev.levee.gateway.jobs.TestStores;
import dev.levee.gateway.jobs.TrialJobs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two replicas sharing Redis (a shared breaker of {@code emu/claude-x}) and one PostgreSQL queue.
 * When the shared circuit's open period ended, each replica's gate said "a trial may start" and
 * each claimed one job as the trial: one replica's call took the cluster's one trial, the other's
 * was refused ("circuit half-open, trial in flight") and its job waited {@code queue.retry-delay}
 * for nothing — one trial job per replica, not per cluster. Now a replica takes the shared
 * breaker's trial permit before it claims the trial job, and the job's call goes out under it: of
 * the two only the one holding the cluster's trial runs a job until the trial decides.
 */
class OneTrialJobPerClusterRegressionTest {

  private static final Target TARGET = GatedReplicas.TARGET;
  private static final int JOBS = 4;

  private final GatedReplicas replicas;
  private final QueueConfig shared = TestStores.postgres();
  private final QueueConfig queue = new QueueConfig(shared.store(), shared.schema(), null, 4, Duration.ofMillis(20),
      Duration.ofMillis(20), null, null, shared.secret(), null, null, null, null);
  private final List<AutoCloseable> closing = new ArrayList<>();

  private final TrialJobs jobs = new TrialJobs(JOBS);
  /** Both replicas read their gate before either claims: each sees "a trial may start". */
  private final CountDownLatch bothLooked = new CountDownLatch(2);

  OneTrialJobPerClusterRegressionTest() throws Exception {
    replicas = new GatedReplicas();
  }

  @AfterEach
  void cleanUp() throws Exception {
    jobs.releaseTrial().countDown();
    for (AutoCloseable c : closing.reversed()) {
      c.close();
    }
    replicas.close();
    TestStores.drop(queue);
  }

  /** One replica: breakers shared through its own cluster link, its own pool on the shared queue. */
  private record Replica(Breakers breakers, PauseGate gate, JobStore store) {}

  private Replica replica(CircuitBreakerConfig breakerConfig) throws InterruptedException {
    GatedReplicas.Replica gated = replicas.replica(breakerConfig, Duration.ofSeconds(10));
    Database db = Database.open(queue);
    closing.add(db);
    return new Replica(gated.breakers(), gated.gate(), new JobStore(db));
  }

  /** Counts the gate reads of a replica's dispatcher once the trial runs. */
  private JobWorkers start(Replica replica, Semaphore looksDuringTrial) {
    JobWorkers workers = new JobWorkers(replica.store(), jobs.executor(replica.breakers(), TARGET), () -> {
      PauseGate.Paused paused = replica.gate().paused();
      if (jobs.trialStarted().getCount() == 0) {
        looksDuringTrial.release();
      }
      if (bothLooked.getCount() > 0 && !paused.trials().isEmpty()) {
        bothLooked.countDown();
        await(bothLooked);
      }
      return paused;
    }, KeySeal.of(queue.secret()), InstantSource.system(), queue);
    closing.add(workers);
    return workers.start();
  }

  @Test
  void ofTwoReplicasOnlyTheOneHoldingTheSharedTrialRunsATrialJob() throws Exception {
    CircuitBreakerConfig breakerConfig = CircuitBreakerConfig.of(1, Duration.ofSeconds(30), Duration.ofMillis(500))
        .withCloseAfter(1);
    Replica a = replica(breakerConfig);
    Replica b = replica(breakerConfig);
    Instant now = InstantSource.system().instant();
    for (int i = 0; i < JOBS; i++) {
      a.store().enqueue(new NewJob("t", "default", "smart", 5, null, new JobRequest("/v1/messages", null, Map.of(),
          "{\"model\":\"smart\",\"max_tokens\":5,\"messages\":[]}".getBytes(StandardCharsets.UTF_8)), null),
          now, now.plusSeconds(3600));
    }
    ((CircuitBreaker.Admitted) a.breakers().gate(TARGET).tryAcquire()).permit().failure(); // open for the cluster
    assertThat(eventually(Duration.ofSeconds(5), () -> b.gate().paused().aliases().contains("smart"))).isTrue();
    Semaphore looksA = new Semaphore(0);
    Semaphore looksB = new Semaphore(0);
    start(a, looksA);
    start(b, looksB);

    assertThat(jobs.trialStarted().await(10, TimeUnit.SECONDS)).as("a trial job starts once the open period ended")
        .isTrue();
    // each replica's dispatcher looks again, ten times (it polls every 20 ms), while the trial is in flight
    assertThat(looksA.tryAcquire(10, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(looksB.tryAcquire(10, 10, TimeUnit.SECONDS)).isTrue();

    assertThat(jobs.refused()).as("no replica ran a second trial job beside the cluster's trial").isEmpty();
    assertThat(jobs.started()).as("jobs started across the cluster while its one trial runs").hasValue(1);

    jobs.releaseTrial().countDown(); // the trial succeeds: the shared circuit closes for both

    assertThat(jobs.allDone().await(10, TimeUnit.SECONDS)).as("the rest runs once the trial closed the circuit")
        .isTrue();
    assertThat(jobs.refused()).isEmpty();
    assertThat(b.breakers().gate(TARGET).state()).isEqualTo(CircuitState.CLOSED);
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("timed out");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
