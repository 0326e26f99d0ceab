package dev.levee.core.tier;

import java.util.Objects;

/**
 * A change of a feature's effective tier, for logs, metrics, /health and the webhook.
 *
 * @param feature the feature's name
 * @param from the tier before
 * @param to the tier after
 * @param reason why, with the numbers that decided (from {@link TierDecision#reason()}, or a
 *     force starting or ending)
 * @param atNanos the controller's {@link dev.levee.core.time.Ticker} reading when it happened
 *     (monotonic nanoseconds, not wall time: convert at the edge)
 */
public record TierTransition(String feature, Tier from, Tier to, String reason, long atNanos) {

  public TierTransition {
    Objects.requireNonNull(feature, "feature");
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    Objects.requireNonNull(reason, "reason");
  }

  /** Whether this transition degrades the feature. */
  public boolean isDown() {
    return to.isBelow(from);
  }
}
