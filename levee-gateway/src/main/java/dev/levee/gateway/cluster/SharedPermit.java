package dev.levee.gateway.cluster;

import dev.levee.core.breaker.Permit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The right to make one call through a {@link SharedBreaker}; settle it exactly once with
 * {@link #success()}, {@link #failure()} or {@link #cancelled()} (the same meanings as
 * {@link Permit}). Settling a failure or a trial costs one Redis command; a normal success costs
 * nothing. Thread-safe.
 *
 * @throws IllegalStateException from the settling methods when the permit was already settled
 */
public final class SharedPermit {

  enum Outcome {
    SUCCESS("S"), FAILURE("F"), CANCELLED("C");

    final String code;

    Outcome(String code) {
      this.code = code;
    }
  }

  private final SharedBreaker breaker;
  private final long epoch;
  private final boolean trial;
  private final long token;
  private final Permit local;
  private final AtomicBoolean settled = new AtomicBoolean();

  /**
   * @param epoch the shared epoch the call was admitted under, or -1 when decided locally
   * @param local the replica's own breaker permit, or null when that breaker did not admit
   */
  SharedPermit(SharedBreaker breaker, long epoch, boolean trial, Permit local) {
    this(breaker, epoch, trial, 0, local);
  }

  /** @param token the shared trial's token (its lease's end in Redis ms), 0 when not the shared trial */
  SharedPermit(SharedBreaker breaker, long epoch, boolean trial, long token, Permit local) {
    this.breaker = breaker;
    this.epoch = epoch;
    this.trial = trial;
    this.token = token;
    this.local = local;
  }

  /** Whether this call is the cluster's one half-open trial (or, when local, this replica's). */
  public boolean trial() {
    return trial || (epoch < 0 && local != null && local.trial());
  }

  /** Whether the call was admitted by the shared state (false: by the local breaker). */
  public boolean shared() {
    return epoch >= 0;
  }

  long epoch() {
    return epoch;
  }

  long token() {
    return token;
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

  private void settle(Outcome outcome) {
    if (!settled.compareAndSet(false, true)) {
      throw new IllegalStateException("permit of " + breaker.target() + " settled twice (now " + outcome + ")");
    }
    if (local != null) {
      switch (outcome) {
        case SUCCESS -> local.success();
        case FAILURE -> local.failure();
        case CANCELLED -> local.cancelled();
      }
    }
    breaker.settle(this, outcome);
  }
}
