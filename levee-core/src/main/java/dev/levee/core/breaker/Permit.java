package dev.levee.core.breaker;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The right to make one call through a {@link CircuitBreaker}; settle it exactly once with
 * {@link #success()}, {@link #failure()} or {@link #cancelled()}.
 *
 * <p>A call that failed for a reason that says nothing about the target's health (the client's
 * own 400, the client going away) is settled with {@link #cancelled()}: it frees a trial slot
 * and counts neither way. Thread-safe.
 *
 * @throws IllegalStateException from the settling methods when the permit was already settled
 */
public final class Permit {

  enum Outcome { SUCCESS, FAILURE, CANCELLED }

  private final CircuitBreaker breaker;
  private final long generation;
  private final boolean trial;
  private final AtomicBoolean settled = new AtomicBoolean();

  Permit(CircuitBreaker breaker, long generation, boolean trial) {
    this.breaker = breaker;
    this.generation = generation;
    this.trial = trial;
  }

  /** Whether this call is a HALF_OPEN trial. */
  public boolean trial() {
    return trial;
  }

  long generation() {
    return generation;
  }

  /** The call succeeded. */
  public void success() {
    settle(Outcome.SUCCESS);
  }

  /** The call failed in a way that counts against the target. */
  public void failure() {
    settle(Outcome.FAILURE);
  }

  /** The call ended without saying anything about the target's health. */
  public void cancelled() {
    settle(Outcome.CANCELLED);
  }

  /** Whether the permit has been settled. */
  public boolean isSettled() {
    return settled.get();
  }

  private void settle(Outcome outcome) {
    if (!settled.compareAndSet(false, true)) {
      throw new IllegalStateException("permit of " + breaker.name() + " settled twice (now " + outcome + ")");
    }
    breaker.settle(this, outcome);
  }
}
