package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.chain.Target;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When a circuit's open period ended, the dispatcher claimed as many of the alias's jobs as it had
 * free workers: one became the trial call, the others were refused ("circuit half-open, trial in
 * flight") and each waited {@code queue.retry-delay} (5 s) — a burst of wasted claims, and work
 * held back for nothing once the trial closed the circuit. Now, while the alias's targets admit
 * only a trial, one job is claimed and the rest stay queued (never claimed, no try counted) until
 * the trial ends; when it closes the circuit they all run at once. The breaker runs on a manual
 * clock; the executor is the request path's breaker check.
 */
class HalfOpenClaimsOneTrialRegressionTest {

  private static final Target TARGET = OneTargetQueue.TARGET;
  private static final int JOBS = 4; // as many as the pool's workers

  private final OneTargetQueue queue;
  private JobWorkers workers;

  HalfOpenClaimsOneTrialRegressionTest() throws Exception {
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
  void oneJobIsClaimedAsTheTrialAndTheRestRunWhenItClosesTheCircuit() throws Exception {
    assertThat(queue.config.workers()).isEqualTo(JOBS);
    ((CircuitBreaker.Admitted) queue.breakers.gate(TARGET).tryAcquire()).permit().failure(); // open for 30 s
    for (int i = 0; i < JOBS; i++) {
      queue.enqueue("smart");
    }
    assertThat(queue.gate.paused().aliases()).as("open: held").contains("smart");
    queue.clock.advance(Duration.ofSeconds(31)); // the open period is over: a trial may start
    assertThat(queue.gate.paused().trialAliases()).contains("smart");

    TrialJobs jobs = new TrialJobs(JOBS);
    Semaphore asked = new Semaphore(0);
    workers = new JobWorkers(queue.store, jobs.executor(queue.breakers, TARGET), () -> {
      if (jobs.trialStarted().getCount() == 0) {
        asked.release(); // the dispatcher asked the gate while the trial ran
      }
      return queue.gate.paused();
    }, KeySeal.of(queue.config.secret()), InstantSource.system(), queue.config, queue.clock::nanos).start();

    assertThat(jobs.trialStarted().await(10, TimeUnit.SECONDS)).isTrue();
    for (int i = 0; i < 3; i++) { // work is added (elsewhere): the dispatcher looks again, three times
      asked.drainPermits();
      workers.wake();
      assertThat(asked.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
    }

    assertThat(jobs.refused()).as("no job claimed beside the trial").isEmpty();
    assertThat(queue.store.counts()).filteredOn(c -> c.state() == JobState.QUEUED)
        .singleElement().satisfies(c -> assertThat(c.jobs()).isEqualTo(JOBS - 1));
    assertThat(queue.gate.paused().why("default", "smart")).hasValueSatisfying(why -> assertThat(why)
        .contains("emu/claude-x: circuit half-open, trial in flight"));

    jobs.releaseTrial().countDown(); // the trial succeeds: closed (close-after 1)

    assertThat(jobs.allDone().await(10, TimeUnit.SECONDS))
        .as("the rest run as soon as the trial ends, not at the next poll").isTrue();
    assertThat(jobs.refused()).isEmpty();
  }
}
