package dev.levee.core.chain;

import dev.levee.core.retry.Failure;
import java.time.Duration;

/**
 * One step a {@link FallbackChain} took for a request, for headers, logs and tests.
 *
 * @param target the target concerned
 * @param step what happened
 * @param failure the classified failure for {@link Step#FAILED}, else null
 * @param waited the backoff or retry-after wait sat out before this step
 * @param took how long the call took (zero for steps that made no call)
 * @param hedge whether this call was a hedge: started next to the first call while that one had
 *     not answered yet
 * @param circuitOpened for a {@link Step#FAILED} step after which its target's circuit was OPEN
 *     (this failure opened it): the time left until it admits a trial, as the chain read it then;
 *     else {@link Duration#ZERO}. {@code x-levee-reason} says {@code "then its circuit opened"}
 * @param waitTooLong for the step that ended the calls of a target whose last failure allowed a
 *     retry because the wait before it was too long (a {@link Step#DEADLINE} step for a wait beyond
 *     the deadline, a {@link Step#OVER_MAX_RETRY_AFTER} step for a stated wait over {@code
 *     max-retry-after}): which wait, and what it was too long for; else null. {@code x-levee-reason}
 *     says {@code "then not retried: retry-after 30 s does not fit in the 12 s left of the deadline"}
 */
public record AttemptRecord(Target target, Step step, Failure failure, Duration waited, Duration took,
    boolean hedge, Duration circuitOpened, WaitTooLong waitTooLong) {

  public AttemptRecord {
    java.util.Objects.requireNonNull(circuitOpened, "circuitOpened");
    if (waitTooLong != null && step != stepOf(waitTooLong)) {
      throw new IllegalArgumentException(waitTooLong + " is recorded by a " + stepOf(waitTooLong) + " step");
    }
    if (step == Step.OVER_MAX_RETRY_AFTER && waitTooLong == null) {
      throw new IllegalArgumentException("an OVER_MAX_RETRY_AFTER step says which wait");
    }
  }

  /** A step that did not end its target's retries for a wait too long. */
  public AttemptRecord(Target target, Step step, Failure failure, Duration waited, Duration took, boolean hedge,
      Duration circuitOpened) {
    this(target, step, failure, waited, took, hedge, circuitOpened, null);
  }

  /** A step after which no circuit opened. */
  public AttemptRecord(Target target, Step step, Failure failure, Duration waited, Duration took, boolean hedge) {
    this(target, step, failure, waited, took, hedge, Duration.ZERO);
  }

  /** A step of a call that is not a hedge, after which no circuit opened. */
  public AttemptRecord(Target target, Step step, Failure failure, Duration waited, Duration took) {
    this(target, step, failure, waited, took, false);
  }

  /** This step, saying its failure left its target's circuit open for {@code left}. */
  AttemptRecord withCircuitOpened(Duration left) {
    return new AttemptRecord(target, step, failure, waited, took, hedge, left, waitTooLong);
  }

  /** The step that ends {@code target}'s retries because the wait before the next was too long: no call, nothing waited. */
  static AttemptRecord notRetried(Target target, WaitTooLong why) {
    return new AttemptRecord(target, stepOf(why), null, Duration.ZERO, Duration.ZERO, false, Duration.ZERO,
        java.util.Objects.requireNonNull(why, "why"));
  }

  private static Step stepOf(WaitTooLong why) {
    return why instanceof WaitTooLong.StatedOverMaxRetryAfter ? Step.OVER_MAX_RETRY_AFTER : Step.DEADLINE;
  }

  /** The kinds of step. */
  public enum Step {
    /** A call was made and answered. */
    ANSWERED,
    /** A call was made and failed. */
    FAILED,
    /** No call: the target's circuit breaker rejected it. */
    SKIPPED_OPEN,
    /** No call: the retry budget had no token left. */
    BUDGET_DENIED,
    /**
     * No call: the wait or the attempt would not fit in the deadline. With {@link
     * AttemptRecord#waitTooLong()} set, it follows a failed call to the same target whose wait
     * before a retry (stated or backoff) did not fit, and that target was not retried.
     */
    DEADLINE,
    /**
     * No call: the wait the last failure of the same target stated ({@code retry-after}) is longer
     * than {@code max-retry-after}, so that target was not retried ({@link
     * AttemptRecord#waitTooLong()} says by how much).
     */
    OVER_MAX_RETRY_AFTER,
    /**
     * A call was made and abandoned because the other call of its hedged pair answered first; its
     * connection was closed and it says nothing about the target.
     */
    CANCELLED
  }

  /** Whether an upstream call was made in this step. */
  public boolean called() {
    return step == Step.ANSWERED || step == Step.FAILED || step == Step.CANCELLED;
  }

  @Override
  public String toString() {
    return target + " " + step + (failure != null ? " (" + failure + ")" : "") + (hedge ? " hedge" : "")
        + (circuitOpened.isPositive() ? " circuit opened" : "")
        + (waitTooLong != null ? " (" + waitTooLong + ")" : "");
  }
}
