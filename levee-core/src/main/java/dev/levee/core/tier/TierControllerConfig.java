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
 *     one step up (default 30 s, issue 4); the hold-down of a scope that has not flapped
 * @param settleAfterDown after a step down, further step downs on <em>signals</em> wait this long
 *     (default 30 s; zero disables). Levee's choice: the SLI window (60 s) still holds the calls
 *     made before the step, so without a pause every signal would ratchet a feature down one
 *     tier per evaluation before the new tier could show its effect. The burn rule and {@link
 *     TierController#force} are never delayed.
 * @param flapWindow a step down within this long of a step up is a <em>flap</em>: the step up was
 *     premature (default 2 min, two SLI windows: long enough for the tier above's calls to reach
 *     the minimum volume and show their failures). Each flap makes the next step up wait one more
 *     {@code healthyFor}; a step up that holds for this long forgets the flaps. Zero disables.
 * @param maxHealthyFor the longest a step up waits however often the feature flapped (default 5
 *     min; never shorter than {@code healthyFor}). The defaults are Envoy outlier detection's: a
 *     host is ejected for {@code base_ejection_time} (30 s) times the number of times it was
 *     ejected, at most {@code max_ejection_time} (300 s).
 */
public record TierControllerConfig(Duration evaluateEvery, Duration healthyFor, Duration settleAfterDown,
    Duration flapWindow, Duration maxHealthyFor) {

  private static final Duration DEFAULT_FLAP_WINDOW = Duration.ofMinutes(2);
  private static final Duration DEFAULT_MAX_HEALTHY_FOR = Duration.ofMinutes(5);

  /** 5 s, 30 s, 30 s, 2 min, 5 min. */
  public static final TierControllerConfig DEFAULT = new TierControllerConfig(Duration.ofSeconds(5),
      Duration.ofSeconds(30), Duration.ofSeconds(30), DEFAULT_FLAP_WINDOW, DEFAULT_MAX_HEALTHY_FOR);

  public TierControllerConfig {
    Objects.requireNonNull(evaluateEvery, "evaluateEvery");
    Objects.requireNonNull(healthyFor, "healthyFor");
    Objects.requireNonNull(settleAfterDown, "settleAfterDown");
    Objects.requireNonNull(flapWindow, "flapWindow");
    Objects.requireNonNull(maxHealthyFor, "maxHealthyFor");
    if (!evaluateEvery.isPositive()) throw new IllegalArgumentException("evaluate-every must be positive, was " + evaluateEvery);
    if (healthyFor.isNegative()) throw new IllegalArgumentException("healthy-for must not be negative, was " + healthyFor);
    if (settleAfterDown.isNegative()) {
      throw new IllegalArgumentException("settle-after-down must not be negative, was " + settleAfterDown);
    }
    if (flapWindow.isNegative()) throw new IllegalArgumentException("flap window must not be negative, was " + flapWindow);
    if (maxHealthyFor.isNegative()) {
      throw new IllegalArgumentException("max healthy-for must not be negative, was " + maxHealthyFor);
    }
  }

  /** The default flap window (2 min) and cap (5 min) with these three. */
  public TierControllerConfig(Duration evaluateEvery, Duration healthyFor, Duration settleAfterDown) {
    this(evaluateEvery, healthyFor, settleAfterDown, DEFAULT_FLAP_WINDOW, DEFAULT_MAX_HEALTHY_FOR);
  }

  public TierControllerConfig withHealthyFor(Duration value) {
    return new TierControllerConfig(evaluateEvery, value, settleAfterDown, flapWindow, maxHealthyFor);
  }

  public TierControllerConfig withSettleAfterDown(Duration value) {
    return new TierControllerConfig(evaluateEvery, healthyFor, value, flapWindow, maxHealthyFor);
  }

  public TierControllerConfig withFlapWindow(Duration value) {
    return new TierControllerConfig(evaluateEvery, healthyFor, settleAfterDown, value, maxHealthyFor);
  }

  public TierControllerConfig withMaxHealthyFor(Duration value) {
    return new TierControllerConfig(evaluateEvery, healthyFor, settleAfterDown, flapWindow, value);
  }

  /**
   * How long readings must stay healthy before a step up after {@code flaps} flaps: {@code
   * healthyFor × (1 + flaps)}, at most {@code maxHealthyFor} (never below {@code healthyFor}).
   */
  public Duration holdDown(int flaps) {
    Duration cap = maxHealthyFor.compareTo(healthyFor) >= 0 ? maxHealthyFor : healthyFor;
    Duration grown = healthyFor.multipliedBy(1L + Math.min(flaps, 10_000));
    return grown.compareTo(cap) <= 0 ? grown : cap;
  }
}
