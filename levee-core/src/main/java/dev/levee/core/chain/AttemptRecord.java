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
 * @param deadlineLeft for a {@link Step#DEADLINE} step that ended the retries of a target whose
 *     last failure stated a wait ({@code retry-after}) within {@code max-retry-after} but too long
 *     for the deadline: the time the deadline had left then (the stated wait is that failure's);
 *     else null. {@code x-levee-reason} says {@code "then not retried: retry-after 30 s does not fit
 *     in the 12 s left of the deadline"}
 */
public record AttemptRecord(Target target, Step step, Failure failure, Duration waited, Duration took,
    boolean hedge, Duration circuitOpened, Duration deadlineLeft) {

  public AttemptRecord {
    java.util.Objects.requireNonNull(circuitOpened, "circuitOpened");
    if (deadlineLeft != null && step != Step.DEADLINE) {
      throw new IllegalArgumentException("only a DEADLINE step gives the deadline's time left");
    }
  }

  /** A step that did not end its target's retries for a stated wait beyond the deadline. */
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
    return new AttemptRecord(target, step, failure, waited, took, hedge, left, deadlineLeft);
  }

  /**
   * The step that ends {@code target}'s retries because its last failure's stated wait does not fit
   * in the {@code left} of the deadline: no call, nothing waited.
   */
  static AttemptRecord statedWaitBeyondDeadline(Target target, Duration left) {
    return new AttemptRecord(target, Step.DEADLINE, null, Duration.ZERO, Duration.ZERO, false, Duration.ZERO,
        java.util.Objects.requireNonNull(left, "left"));
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
     * AttemptRecord#deadlineLeft()} set, it follows a failed call to the same target whose stated
     * wait did not fit, and that target was not retried.
     */
    DEADLINE,
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
        + (deadlineLeft != null ? " (" + deadlineLeft.toMillis() + " ms left)" : "");
  }
}
