package dev.levee.gateway.jobs;

import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.core.chain.ReservedPermit;
import java.time.Duration;

/**
 * Runs one job's request through the gateway's resilience path. Implementations block; the
 * worker pool calls them on virtual threads.
 */
@FunctionalInterface
public interface JobExecutor {

  /** What became of one try. */
  sealed interface Outcome permits Finished, RetryLater {}

  /**
   * An answer to record: the API's (a 200 message, or a client error that no retry can fix) or
   * Levee's refusal.
   */
  record Finished(JobResult result) implements Outcome {
    public boolean succeeded() {
      return result.status() / 100 == 2;
    }
  }

  /**
   * No answer now (every target failed, or the deadline passed): the job waits and is tried
   * again, until it expires.
   *
   * @param reason what happened, for {@code last_error}
   * @param after the earliest useful retry, when the upstream or a breaker said; else null
   */
  record RetryLater(String reason, Duration after) implements Outcome {}

  /**
   * Runs {@code request}; {@code apiKey} is the client's key to send, or null when the upstream
   * has its own. {@code lost} fires when this worker's claim on the job is lost (its lease ran out
   * and another worker may run it): the try should stop — its upstream calls closed, no further
   * attempt — since its result would not be recorded. {@code trial} is the half-open trial permit
   * the workers took for this job, the trial call of its target ({@link ReservedPermit#NONE} for
   * any other job): the call to that target goes out under it rather than asking the breaker,
   * whose trial slot it holds. The workers release it after the run, so an executor that does not
   * use it frees the slot.
   */
  Outcome execute(JobRequest request, String apiKey, Cancellation lost, ReservedPermit trial);
}
