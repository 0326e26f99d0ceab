package dev.levee.gateway.jobs;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.Permit;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Jobs of one target whose circuit is half-open, for tests of how many the workers claim: each
 * job's call asks the target's breaker as the request path does (a job holding the workers' trial
 * permit calls under it). A refused call is recorded and retried later; the trial call waits until
 * the test counts down {@link #releaseTrial()}, then succeeds, as does every admitted call.
 */
public final class TrialJobs {

  private final Queue<String> refused = new ConcurrentLinkedQueue<>();
  private final AtomicInteger started = new AtomicInteger();
  private final CountDownLatch trialStarted = new CountDownLatch(1);
  private final CountDownLatch releaseTrial = new CountDownLatch(1);
  private final CountDownLatch allDone;

  /** For {@code jobs} jobs: {@link #allDone()} opens once that many calls succeeded. */
  public TrialJobs(int jobs) {
    allDone = new CountDownLatch(jobs);
  }

  /** The executor of jobs whose calls go to {@code target} through {@code breakers}. */
  public JobExecutor executor(Breakers breakers, Target target) {
    return (request, key, lost, trial) -> {
      started.incrementAndGet();
      Permit reserved = trial.take(target); // as the chain does: the trial job calls under the workers' permit
      switch (reserved != null ? new CircuitBreaker.Admitted(reserved) : breakers.gate(target).tryAcquire()) {
        case CircuitBreaker.Rejected r -> {
          refused.add("circuit " + r.state());
          return new JobExecutor.RetryLater("circuit half-open, trial in flight", null);
        }
        case CircuitBreaker.Admitted a -> {
          if (a.permit().trial()) {
            trialStarted.countDown();
            await(releaseTrial);
          }
          a.permit().success();
          allDone.countDown();
          return new JobExecutor.Finished(new JobResult(200, Map.of(), "{}".getBytes(StandardCharsets.UTF_8)));
        }
      }
    };
  }

  /** The breaker's refusals of job calls ({@code circuit <state>}), in order. */
  public Queue<String> refused() {
    return refused;
  }

  /** How many job calls started. */
  public AtomicInteger started() {
    return started;
  }

  /** Opens when the trial call started. */
  public CountDownLatch trialStarted() {
    return trialStarted;
  }

  /** The test counts it down to let the trial call succeed. */
  public CountDownLatch releaseTrial() {
    return releaseTrial;
  }

  /** Opens once every job's call succeeded. */
  public CountDownLatch allDone() {
    return allDone;
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("the trial was never released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
