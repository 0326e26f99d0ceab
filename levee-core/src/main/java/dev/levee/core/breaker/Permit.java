package dev.levee.core.breaker;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

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

  /** How a call ended, for an {@link #external} permit's settler. */
  public enum Outcome { SUCCESS, FAILURE, CANCELLED }

  private final CircuitBreaker breaker; // null for an external permit
  private final String name;
  private final Consumer<Outcome> settler; // null for a local permit
  private final long generation;
  private final boolean trial;
  private final AtomicBoolean settled = new AtomicBoolean();

  Permit(CircuitBreaker breaker, long generation, boolean trial) {
    this.breaker = breaker;
    this.name = breaker.name();
    this.settler = null;
    this.generation = generation;
    this.trial = trial;
  }

  private Permit(String name, boolean trial, Consumer<Outcome> settler) {
    this.breaker = null;
    this.name = name;
    this.settler = settler;
    this.generation = -1;
    this.trial = trial;
  }

  /**
   * A permit of a breaker kept elsewhere (e.g. shared by gateway replicas): settling it calls
   * {@code settler} once with the outcome.
   *
   * @param name the breaker's name, for errors
   * @param trial whether the call is a HALF_OPEN trial
   */
  public static Permit external(String name, boolean trial, Consumer<Outcome> settler) {
    return new Permit(Objects.requireNonNull(name, "name"), trial, Objects.requireNonNull(settler, "settler"));
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
      throw new IllegalStateException("permit of " + name + " settled twice (now " + outcome + ")");
    }
    if (breaker != null) {
      breaker.settle(this, outcome);
    } else {
      settler.accept(outcome);
    }
  }
}
