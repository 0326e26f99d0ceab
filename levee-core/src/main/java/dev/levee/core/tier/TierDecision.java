package dev.levee.core.tier;

import java.util.Objects;

/**
 * What the {@link TierDecider} concluded from one reading.
 *
 * @param next the tier the decider proposes (equal to the current tier on a hold)
 * @param cause which rule decided
 * @param reason a short sentence for logs and transition events, with the numbers that decided
 */
public record TierDecision(Tier next, Cause cause, String reason) {

  /** Which rule produced a decision. */
  public enum Cause {
    /** The error budget burns at the alert threshold in both windows: to the burn tier. */
    BURN,
    /** 5xx, 429 or p99 at or above its step-down threshold: one step per elevated signal. */
    SIGNALS,
    /** Every signal is healthy: one step up (the controller waits for {@code healthy-for} first). */
    HEALTHY,
    /** Neither degraded nor healthy, or too few calls to judge: stay. */
    HOLD
  }

  public TierDecision {
    Objects.requireNonNull(next, "next");
    Objects.requireNonNull(cause, "cause");
    Objects.requireNonNull(reason, "reason");
  }
}
