package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.chain.Target;
import dev.levee.gateway.Aliases;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Aliases {@code smart} and {@code quick} both go to {@code emu/claude-x}. When its open period
 * ended, the trial claiming was per alias: the dispatcher claimed one job of each as "the trial",
 * and the second met "circuit half-open, trial in flight" and waited {@code queue.retry-delay} for
 * nothing. Now there is one trial per target: one job of either alias runs as the target's trial,
 * the jobs of both wait for its verdict and run once it closes the circuit.
 */
class AliasesSharingATargetShareOneTrialRegressionTest {

  private static final Target TARGET = OneTargetQueue.TARGET;

  private final OneTargetQueue queue;
  private JobWorkers workers;

  AliasesSharingATargetShareOneTrialRegressionTest() throws Exception {
    queue = new OneTargetQueue("smart", "quick");
  }

  @AfterEach
  void close() {
    if (workers != null) {
      workers.close();
    }
    queue.close();
  }

  @Test
  void twoAliasesOfOneHalfOpenTargetRunOneTrialJobBetweenThem() throws Exception {
    ((CircuitBreaker.Admitted) queue.breakers.gate(TARGET).tryAcquire()).permit().failure(); // open for 30 s
    queue.enqueue("smart");
    queue.enqueue("quick");
    queue.enqueue("smart");
    queue.enqueue("quick");
    queue.clock.advance(Duration.ofSeconds(31)); // a trial may start
    assertThat(queue.gate.paused().trials()).singleElement().satisfies(trial -> {
      assertThat(trial.target()).isEqualTo(TARGET);
      assertThat(trial.aliases()).as("and the model named directly").containsExactlyInAnyOrder("smart", "quick",
          "claude-x");
    });

    TrialJobs jobs = new TrialJobs(4);
    Semaphore asked = new Semaphore(0);
    workers = new JobWorkers(queue.store, jobs.executor(queue.breakers, TARGET), () -> {
      if (jobs.trialStarted().getCount() == 0) {
        asked.release();
      }
      return queue.gate.paused();
    }, KeySeal.of(queue.config.secret()), InstantSource.system(), queue.config, queue.clock::nanos).start();

    assertThat(jobs.trialStarted().await(10, TimeUnit.SECONDS)).isTrue();
    for (int i = 0; i < 3; i++) { // the dispatcher looks again, three times, while the trial runs
      asked.drainPermits();
      workers.wake();
      assertThat(asked.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
    }

    assertThat(jobs.refused()).as("no second trial job claimed for the other alias").isEmpty();
    assertThat(jobs.started()).as("jobs started while the target's trial runs").hasValue(1);
    assertThat(queue.gate.paused().why("default", "quick")).isPresent();
    assertThat(queue.gate.paused().why("default", "smart")).isPresent();

    jobs.releaseTrial().countDown(); // the trial succeeds: closed

    assertThat(jobs.allDone().await(10, TimeUnit.SECONDS))
        .as("both aliases' work runs once the trial closed the circuit").isTrue();
    assertThat(jobs.refused()).isEmpty();
  }
}
