package dev.levee.core.tier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.sli.SliOutcome;
import dev.levee.core.sli.SlidingWindow;
import dev.levee.core.slo.SloTracker;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Issue 4's storm drill on the core pieces alone, in virtual time: the real {@link
 * SlidingWindow} (60 s) and {@link SloTracker} feed a {@link TierController} evaluated every 5 s.
 * Simplified: every call reaches the upstream whatever the tier (no cache); 10 calls a second
 * after 10 healthy minutes; during a 180 s storm half of them are answered 429.
 *
 * <p>The recovery bounds below are derived, not tuned: once the storm ends, the burn rule (14.4
 * in both windows) keeps the feature at T2 until the storm's share of the 5 min window drops
 * under 7.2% (about 257 s); with the default healthy burn (the short window below 14.4, issue 10)
 * two steps up of 30 s each follow. With a healthy burn of 2 (the rule before issue 10) the share
 * must drop under 1% (about 294 s) first. In the gateway the clients' answers from the cache
 * count for the burn, so it cools during the storm already ({@code StormDrillTest}).
 */
class TierStormDrillTest {

  private static final int CALLS_PER_SECOND = 10;

  private final ManualClock clock = new ManualClock();
  private final SlidingWindow window = new SlidingWindow(clock);
  private final SloTracker slo = new SloTracker(clock);

  private record Timeline(long secondsToT2, long secondsToRecover) {}

  private Timeline run(TierThresholds thresholds, Supplier<SliReading> readings) {
    TierController controller = new TierController("chat", Priority.STANDARD, new TierDecider(thresholds),
        readings, TierControllerConfig.DEFAULT, clock);
    traffic(controller, 600, false);
    long toT2 = -1;
    for (int s = 1; s <= 180; s++) {
      traffic(controller, 1, true);
      if (toT2 < 0 && !Tier.T2.isBelow(controller.current())) {
        toT2 = s;
      }
    }
    long recovered = -1;
    for (int s = 1; s <= 900 && recovered < 0; s++) {
      traffic(controller, 1, false);
      if (controller.current() == Tier.T0) {
        recovered = s;
      }
    }
    return new Timeline(toT2, recovered);
  }

  private void traffic(TierController controller, int seconds, boolean storm) {
    for (int s = 0; s < seconds; s++) {
      for (int i = 0; i < CALLS_PER_SECOND; i++) {
        SliOutcome outcome = storm && i % 2 == 0 ? SliOutcome.RATE_LIMITED : SliOutcome.SUCCESS;
        window.record(outcome, Duration.ofMillis(120));
        slo.record(outcome);
      }
      clock.advance(Duration.ofSeconds(1));
      if (Math.floorMod(clock.nanos() / 1_000_000_000L, 5) == 0) {
        controller.evaluate();
      }
    }
  }

  @Test
  void withTheDefaultsTheWayUpWaitsOnlyForTheBurnRuleToStopFiring() {
    Timeline timeline = run(TierThresholds.DEFAULT, () -> SliReading.of(window.snapshot(), slo));

    assertThat(timeline.secondsToT2()).as("429 >= 5%: T1, then T2 after settling").isBetween(1L, 60L);
    assertThat(timeline.secondsToRecover()).as("burn < 14.4 at ~257 s, then 2 x 30 s").isBetween(300L, 335L);
  }

  @Test
  void aHealthyBurnOf2WaitsForTheStormToLeaveTheShortWindow() {
    Timeline timeline = run(TierThresholds.DEFAULT.withHealthyBurn(2), () -> SliReading.of(window.snapshot(), slo));

    assertThat(timeline.secondsToT2()).isBetween(1L, 60L);
    assertThat(timeline.secondsToRecover()).as("burn < 2 at ~294 s, then 2 x 30 s").isBetween(340L, 370L);
  }

  @Test
  void droppingTheBurnConditionOnTheWayUpStillWaitsForTheBurnRuleToStopFiring() {
    Timeline timeline = run(TierThresholds.DEFAULT.withHealthyBurn(Double.POSITIVE_INFINITY),
        () -> SliReading.of(window.snapshot(), slo));

    assertThat(timeline.secondsToRecover()).as("burn < 14.4 at ~257 s, then 2 x 30 s").isBetween(300L, 335L);
  }

  @Test
  void aTwoMinuteShortWindowMeetsTheIssuesFiveMinuteRecovery() {
    Timeline timeline = run(TierThresholds.DEFAULT,
        () -> SliReading.of(window.snapshot(), slo.burnRates(Duration.ofHours(1), Duration.ofMinutes(2))));

    assertThat(timeline.secondsToT2()).isBetween(1L, 60L);
    // the burn rule stops once the storm is under 7.2% of 2 min, then 2 x 30 s
    assertThat(timeline.secondsToRecover()).isLessThanOrEqualTo(200L);
  }
}
