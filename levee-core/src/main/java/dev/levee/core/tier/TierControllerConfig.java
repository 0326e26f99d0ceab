package dev.levee.core.tier;

import java.time.Duration;
import java.util.Objects;

/**
 * Timing of a {@link TierController}; immutable.
 *
 * @param evaluateEvery how often the caller's scheduler should call {@link
 *     TierController#evaluate()} (default 5 s, issue 4). The controller owns no thread and does
 *     not read this value; it is here so the schedule is configured next to the rest.
 * @param healthyFor how long readings must stay healthy, without a single unhealthy one, before
 *     one step up (default 30 s, issue 4)
 * @param settleAfterDown after a step down, further step downs on <em>signals</em> wait this long
 *     (default 30 s; zero disables). Levee's choice: the SLI window (60 s) still holds the calls
 *     made before the step, so without a pause every signal would ratchet a feature down one
 *     tier per evaluation before the new tier could show its effect. The burn rule and {@link
 *     TierController#force} are never delayed.
 */
public record TierControllerConfig(Duration evaluateEvery, Duration healthyFor, Duration settleAfterDown) {

  /** 5 s, 30 s, 30 s. */
  public static final TierControllerConfig DEFAULT =
      new TierControllerConfig(Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(30));

  public TierControllerConfig {
    Objects.requireNonNull(evaluateEvery, "evaluateEvery");
    Objects.requireNonNull(healthyFor, "healthyFor");
    Objects.requireNonNull(settleAfterDown, "settleAfterDown");
    if (!evaluateEvery.isPositive()) throw new IllegalArgumentException("evaluate-every must be positive, was " + evaluateEvery);
    if (healthyFor.isNegative()) throw new IllegalArgumentException("healthy-for must not be negative, was " + healthyFor);
    if (settleAfterDown.isNegative()) {
      throw new IllegalArgumentException("settle-after-down must not be negative, was " + settleAfterDown);
    }
  }

  public TierControllerConfig withHealthyFor(Duration value) {
    return new TierControllerConfig(evaluateEvery, value, settleAfterDown);
  }

  public TierControllerConfig withSettleAfterDown(Duration value) {
    return new TierControllerConfig(evaluateEvery, healthyFor, value);
  }
}
