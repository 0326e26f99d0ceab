package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Target;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12 newcomer trial): with no job waiting, the dispatcher still took the trial
 * permit of each target whose open period was over — which turns the circuit half-open — and gave
 * it back unused. No trial ran, yet {@code /health} read the target as half-open ({@code degraded},
 * 200) while its upstream was still down, and {@code awaiting_trial} never showed. The workers now
 * take a trial permit only when a job of the waiting aliases is ready to use it.
 */
class IdleWorkersLeaveAnOpenCircuitAloneRegressionTest {

  private static final Target TARGET = OneTargetQueue.TARGET;

  private final OneTargetQueue queue;
  private JobWorkers workers;

  IdleWorkersLeaveAnOpenCircuitAloneRegressionTest() throws Exception {
    queue = new OneTargetQueue("smart");
  }

  @AfterEach
  void close() {
    if (workers != null) {
      workers.close();
    }
    queue.close();
  }

  @Test
  void noJobWaitingTakesNoTrialAndAJobThatArrivesDoes() throws Exception {
    ((CircuitBreaker.Admitted) queue.breakers.gate(TARGET).tryAcquire()).permit().failure(); // open for 30 s
    queue.clock.advance(Duration.ofSeconds(31)); // the open period is over: a trial may start
    assertThat(queue.gate.paused().trials()).as("the gate offers the trial").isNotEmpty();

    TrialJobs jobs = new TrialJobs(1);
    Semaphore asked = new Semaphore(0);
    workers = new JobWorkers(queue.store, jobs.executor(queue.breakers, TARGET), () -> {
      asked.release();
      return queue.gate.paused();
    }, KeySeal.of(queue.config.secret()), InstantSource.system(), queue.config, queue.clock::nanos).start();
    for (int i = 0; i < 3; i++) { // every look after the first follows a whole claim pass
      workers.wake();
      assertThat(asked.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
    }

    CircuitBreaker breaker = queue.breakers.of(TARGET);
    assertThat(breaker.state()).as("old: HALF_OPEN with no trial run").isEqualTo(CircuitState.OPEN);
    assertThat(breaker.openRemaining()).as("its open period over: the next call is the trial").isZero();
    assertThat(jobs.started()).hasValue(0);

    queue.enqueue("smart"); // work arrives: it is the trial
    workers.wake();
    assertThat(jobs.trialStarted().await(10, TimeUnit.SECONDS)).isTrue();
    jobs.releaseTrial().countDown();
    assertThat(jobs.allDone().await(10, TimeUnit.SECONDS)).isTrue();
  }
}
