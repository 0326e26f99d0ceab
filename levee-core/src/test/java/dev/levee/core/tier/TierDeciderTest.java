package dev.levee.core.tier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.sli.SliSnapshot;
import dev.levee.core.slo.BurnRates;
import dev.levee.core.tier.TierDecision.Cause;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The decider's table with the default thresholds (issue 4). Shares are written in percent. */
class TierDeciderTest {

  private final TierDecider decider = new TierDecider();

  @ParameterizedTest(name = "[{index}] {11}")
  @CsvSource(delimiter = '|', textBlock = """
      # now | priority | p99 ms | 5xx % | 429 % | calls | burn 1h | burn 5m | burn calls | next | cause   | story
        T0  | STANDARD | 120    | 0     | 0     | 1000  | 0       | 0       | 1000       | T0   | HEALTHY | healthy at T0 stays at T0
        T1  | STANDARD | 120    | 0.4   | 0.9   | 1000  | 1.9     | 1.9     | 1000       | T0   | HEALTHY | healthy just inside every bound: one step up
        T3  | OPTIONAL | 120    | 0     | 0     | 1000  | 0       | 0       | 1000       | T2   | HEALTHY | one step up at a time, even from T3
        T0  | STANDARD | 120    | 3     | 0     | 1000  | 0       | 0       | 1000       | T1   | SIGNALS | 5xx >= 2%: one step down
        T0  | STANDARD | 120    | 2     | 0     | 1000  | 0       | 0       | 1000       | T1   | SIGNALS | 5xx exactly 2% counts as elevated
        T0  | STANDARD | 120    | 1.9   | 0     | 1000  | 0       | 0       | 1000       | T0   | HOLD    | 5xx between healthy and degraded: hold
        T1  | STANDARD | 120    | 0.5   | 0     | 1000  | 0       | 0       | 1000       | T1   | HOLD    | 5xx exactly 0.5% is not healthy
        T0  | STANDARD | 120    | 0     | 5     | 1000  | 0       | 0       | 1000       | T1   | SIGNALS | 429 >= 5%: one step down
        T0  | STANDARD | 120    | 0     | 4.9   | 1000  | 0       | 0       | 1000       | T0   | HOLD    | 429 below 5% but not healthy: hold
        T1  | STANDARD | 120    | 0     | 1     | 1000  | 0       | 0       | 1000       | T1   | HOLD    | 429 exactly 1% is not healthy
        T0  | STANDARD | 120    | 3     | 6     | 1000  | 0       | 0       | 1000       | T2   | SIGNALS | 5xx and 429 both elevated: two steps
        T0  | STANDARD | 800    | 0     | 0     | 1000  | 0       | 0       | 1000       | T1   | SIGNALS | p99 >= 800 ms: one step down
        T1  | STANDARD | 799    | 0     | 0     | 1000  | 0       | 0       | 1000       | T1   | HOLD    | p99 between 500 and 800 ms: hold
        T1  | STANDARD | 500    | 0     | 0     | 1000  | 0       | 0       | 1000       | T1   | HOLD    | p99 exactly 500 ms is not healthy
        T1  | STANDARD | 120    | 3     | 0     | 1000  | 0       | 0       | 1000       | T2   | SIGNALS | a step is taken from the current tier
        T0  | STANDARD | 900    | 3     | 6     | 1000  | 0       | 0       | 1000       | T2   | SIGNALS | three signals stop at the signal floor T2
        T2  | STANDARD | 900    | 3     | 6     | 1000  | 0       | 0       | 1000       | T2   | HOLD    | signals alone never go below T2
        T2  | OPTIONAL | 120    | 3     | 6     | 1000  | 0       | 0       | 1000       | T2   | HOLD    | not even for an optional feature
        T0  | STANDARD | 120    | 0     | 0     | 1000  | 15      | 15      | 1000       | T2   | BURN    | burn >= 14.4 in both windows: T2
        T0  | CRITICAL | 120    | 0     | 0     | 1000  | 15      | 15      | 1000       | T2   | BURN    | a critical feature goes to T2 as well
        T0  | OPTIONAL | 120    | 0     | 0     | 1000  | 15      | 15      | 1000       | T3   | BURN    | an optional feature goes to T3
        T0  | STANDARD | 120    | 0     | 0     | 1000  | 14.4    | 14.4    | 1000       | T2   | BURN    | burn exactly 14.4 counts
        T0  | STANDARD | 120    | 0     | 0     | 1000  | 15      | 10      | 1000       | T0   | HEALTHY | the 5 min window says it is over: no burn step, healthy
        T2  | STANDARD | 120    | 0     | 0     | 1000  | 40      | 14.3    | 1000       | T1   | HEALTHY | the short window decides the way up: the hour still burning does not hold
        T2  | STANDARD | 120    | 0     | 0     | 1000  | 10      | 14.4    | 1000       | T2   | HOLD    | a short window at the alert threshold is not healthy
        T0  | STANDARD | 120    | 0     | 0     | 1000  | 10      | 15      | 1000       | T0   | HOLD    | a short spike the hour does not confirm: hold
        T0  | STANDARD | 120    | 0     | 0     | 1000  | 50      | 50      | 10         | T0   | HOLD    | too few calls behind the burn: no burn step
        T1  | STANDARD | 120    | 3     | 0     | 1000  | 15      | 15      | 1000       | T2   | BURN    | burn and signals agree on T2
        T1  | OPTIONAL | 120    | 3     | 0     | 1000  | 15      | 15      | 1000       | T3   | BURN    | the lower of burn (T3) and signals (T2) wins
        T0  | STANDARD | 120    | 3     | 6     | 1000  | 15      | 15      | 1000       | T2   | BURN    | equal targets: burn is named as the cause
        T3  | OPTIONAL | 120    | 0     | 0     | 1000  | 15      | 15      | 1000       | T3   | HOLD    | already at the burn tier: hold
        T3  | STANDARD | 120    | 0     | 0     | 1000  | 15      | 15      | 1000       | T3   | HOLD    | a forced-low tier is never raised while burning
        T2  | STANDARD | 120    | 0     | 0     | 1000  | 20      | 1       | 1000       | T1   | HEALTHY | the hour remembers the storm, 5 min are clean: up
        T2  | STANDARD | 120    | 0     | 0     | 0     | 0       | 0       | 0          | T1   | HEALTHY | no traffic counts as healthy
        T2  | STANDARD | 120    | 20    | 0     | 5     | 0       | 0       | 5          | T2   | HOLD    | a quiet window with a failure does not step up
        T0  | STANDARD | 120    | 100   | 0     | 5     | 0       | 0       | 5          | T0   | HOLD    | nor is 5 failures of 5 enough to step down
        T2  | STANDARD | 0     | 0     | 0     | 3     | 20      | 20      | 1000       | T2   | HOLD    | quiet at T2 while the budget burns: hold
        T2  | STANDARD | 0     | 0     | 0     | 3     | 20      | 1       | 1000       | T1   | HEALTHY | quiet at T2 after the burn stopped: probe one step up
      """)
  void decides(Tier now, Priority priority, double p99, double serverPct, double rateLimitedPct, long calls,
      double burn1h, double burn5m, long burnCalls, Tier next, Cause cause, String story) {
    SliReading reading = new SliReading(p99, serverPct / 100, rateLimitedPct / 100, calls, burn1h, burn5m, burnCalls);

    TierDecision decision = decider.decide(now, reading, priority);

    assertThat(decision.next()).as(story + ": " + decision.reason()).isEqualTo(next);
    assertThat(decision.cause()).as(story + ": " + decision.reason()).isEqualTo(cause);
  }

  @Test
  void theReasonCarriesTheNumbersThatDecided() {
    SliReading reading = new SliReading(120, 0.031, 0.062, 1000, 0, 0, 1000);

    TierDecision decision = decider.decide(Tier.T0, reading, Priority.STANDARD);

    assertThat(decision.reason()).isEqualTo("5xx 3.1% >= 2.0%, 429 6.2% >= 5.0%: two steps down, T0 -> T2");
  }

  @Test
  void aBurnReasonNamesBothWindowsAndThePriority() {
    SliReading reading = new SliReading(120, 0, 0, 1000, 20.04, 16, 1000);

    assertThat(decider.decide(Tier.T0, reading, Priority.OPTIONAL).reason())
        .isEqualTo("error-budget burn 20.0x over 1 h and 16.0x over 5 min, at or above 14.4x: optional feature to T3, T0 -> T3");
  }

  @Test
  void everyThresholdIsConfigurable() {
    // given a critical feature configured to tolerate more: signals may take it to T1 only, burn at 30
    TierThresholds patient = new TierThresholds(30, Tier.T1, Tier.T3, 0.10, 0.20, 2000, Tier.T1,
        1000, 0.02, 0.05, 5, 50);
    TierDecider lenient = new TierDecider(patient);

    assertThat(lenient.decide(Tier.T0, new SliReading(120, 0.05, 0.10, 1000, 20, 20, 1000), Priority.CRITICAL))
        .extracting(TierDecision::next, TierDecision::cause).containsExactly(Tier.T0, Cause.HOLD);
    assertThat(lenient.decide(Tier.T0, new SliReading(2500, 0.10, 0.20, 1000, 0, 0, 1000), Priority.CRITICAL))
        .extracting(TierDecision::next, TierDecision::cause).containsExactly(Tier.T1, Cause.SIGNALS);
    assertThat(lenient.decide(Tier.T0, new SliReading(120, 0, 0, 1000, 31, 31, 1000), Priority.CRITICAL))
        .extracting(TierDecision::next, TierDecision::cause).containsExactly(Tier.T1, Cause.BURN);
    assertThat(lenient.decide(Tier.T1, new SliReading(900, 0.01, 0.04, 1000, 4, 4, 1000), Priority.CRITICAL))
        .extracting(TierDecision::next, TierDecision::cause).containsExactly(Tier.T0, Cause.HEALTHY);
  }

  @Test
  void aHealthyBurnOf2HoldsAFeatureWhileTheShortWindowStillRemembers() {
    TierDecider strict = new TierDecider(TierThresholds.DEFAULT.withHealthyBurn(2));
    SliReading cleanWindowRecentStorm = new SliReading(120, 0, 0, 1000, 12, 12, 1000);

    assertThat(decider.decide(Tier.T2, cleanWindowRecentStorm, Priority.STANDARD).next()).isEqualTo(Tier.T1);
    assertThat(strict.decide(Tier.T2, cleanWindowRecentStorm, Priority.STANDARD).next()).isEqualTo(Tier.T2);
  }

  @Test
  void whileTheClientsAreAnsweredTargetSignalsGoNoLowerThanT1() {
    // the primary fails every call (5xx and 429) but retries and fallbacks answer every client
    SliReading absorbed = new SliReading(120, 0.6, 0.3, 1000, 0, 0, 1000, 0, "emu/claude-big");

    TierDecision fromT0 = decider.decide(Tier.T0, absorbed, Priority.OPTIONAL);

    assertThat(fromT0.next()).isEqualTo(Tier.T1);
    assertThat(fromT0.reason()).isEqualTo(
        "emu/claude-big: 5xx 60.0% >= 2.0%, 429 30.0% >= 5.0%: two steps down (clients answered: floor T1), T0 -> T1");
    assertThat(decider.decide(Tier.T1, absorbed, Priority.OPTIONAL))
        .extracting(TierDecision::next, TierDecision::cause).containsExactly(Tier.T1, Cause.HOLD);
  }

  @Test
  void whenTheClientsSeeFailuresTargetSignalsReachTheSignalFloor() {
    SliReading felt = new SliReading(120, 0.6, 0.3, 1000, 0, 0, 1000, 0.02, "emu/claude-big");

    assertThat(decider.decide(Tier.T0, felt, Priority.STANDARD))
        .extracting(TierDecision::next, TierDecision::cause).containsExactly(Tier.T2, Cause.SIGNALS);
  }

  @Test
  void theMinimumVolumeIsConfigurableAndAppliesToEveryStepDown() {
    TierDecider patient = new TierDecider(TierThresholds.DEFAULT.withMinRequests(50));
    SliReading fewBadCalls = new SliReading(120, 0.5, 0, 40, 100, 100, 40, 0.5, "");

    assertThat(decider.decide(Tier.T0, fewBadCalls, Priority.STANDARD).next()).isEqualTo(Tier.T2);
    assertThat(patient.decide(Tier.T0, fewBadCalls, Priority.STANDARD))
        .extracting(TierDecision::next, TierDecision::cause).containsExactly(Tier.T0, Cause.HOLD);
  }

  @Test
  void sharesWhoseFailuresAreOverHoldButNeverStepDown() {
    // the window still remembers an outage: 30% 5xx and 10% 429, but no call failed in the short window
    SliReading remembered = new SliReading(120, 0.3, 0.1, 100, 0, 0, 0, 1, "emu/claude-sick", false);
    SliReading current = new SliReading(120, 0.3, 0.1, 100, 0, 0, 0, 1, "emu/claude-sick", true);

    TierDecision stale = decider.decide(Tier.T1, remembered, Priority.STANDARD);

    assertThat(stale).extracting(TierDecision::next, TierDecision::cause).containsExactly(Tier.T1, Cause.HOLD);
    assertThat(stale.reason()).contains("but no call failed within the short window (none made, or all answered): no step down on older failures alone");
    assertThat(decider.decide(Tier.T0, remembered, Priority.STANDARD).next()).as("not from T0 either").isEqualTo(Tier.T0);
    assertThat(decider.decide(Tier.T1, current, Priority.STANDARD))
        .extracting(TierDecision::next, TierDecision::cause).containsExactly(Tier.T2, Cause.SIGNALS);
  }

  @Test
  void aScopedReadingTakesSignalsFromTheCallsAndTheFailureShareFromTheClients() {
    SliSnapshot calls = new SliSnapshot(60, 25, 75, 0, 0, 20, 30, 40);
    SliSnapshot clients = new SliSnapshot(60, 100, 0, 0, 0, 200, 900, 1200);

    SliReading reading = SliReading.scoped(calls, "emu/emu-529", clients, new BurnRates(0, 0, 100));

    assertThat(reading).isEqualTo(new SliReading(1200, 0.75, 0, 100, 0, 0, 100, 0, "emu/emu-529", true));
    assertThat(SliReading.scoped(calls, "emu/emu-529", clients, new BurnRates(0, 0, 100), false).freshFailures())
        .isFalse();
  }

  /** A reading of {@code calls} calls, none failed, with a burn of {@code burn} over both windows. */
  private static SliReading burnt(long calls, double burn, boolean clientsFailLately, String stepUpHeld) {
    return new SliReading(120, 0, 0, calls, burn, burn, 1000, 0, "", true, clientsFailLately, stepUpHeld);
  }

  @Test
  void aBurnStepsDownOnlyWhileClientsFailNow() {
    assertThat(decider.decide(Tier.T0, burnt(1000, 30, true, ""), Priority.STANDARD).next()).isEqualTo(Tier.T2);

    TierDecision over = decider.decide(Tier.T0, burnt(1000, 30, false, ""), Priority.STANDARD);

    assertThat(over.next()).isEqualTo(Tier.T0);
    assertThat(over.cause()).isEqualTo(Cause.HEALTHY);
    assertThat(over.reason()).contains("no client failed within the short window: that outage is over");
  }

  @Test
  void aQuietTierHeldByAnOutagesBurnStepsUpOnceNoClientFailsNow() {
    // the newcomer trial's reading: the hour's burn under the alert, the 5 min one over it
    TierDecision held = decider.decide(Tier.T2, new SliReading(0, 0, 0, 0, 9, 30.2, 400, 0, "", true, true, ""),
        Priority.CRITICAL);
    assertThat(held.cause()).isEqualTo(Cause.HOLD);
    assertThat(held.reason()).isEqualTo("quiet: 0 calls, fewer than the 20 needed to judge, error-budget burn 30.2x over 5 min,"
        + " at or above 14.4x: hold");

    TierDecision up = decider.decide(Tier.T2, new SliReading(0, 0, 0, 0, 9, 30.2, 400, 0, "", true, false, ""),
        Priority.CRITICAL);

    assertThat(up.next()).isEqualTo(Tier.T1);
    assertThat(up.reason()).isEqualTo("quiet: 0 calls, fewer than the 20 needed to judge, none failed, error-budget burn"
        + " 30.2x over 5 min, but no client failed within the short window: that outage is over: one step up, T2 -> T1");
  }

  @Test
  void aHealthyReadingWhoseStepUpIsHeldStaysHealthyAtItsTierAndSaysWhy() {
    TierDecision held = decider.decide(Tier.T1, burnt(1000, 0, false, "ea/claude-opus-4-6: circuit open, its trial in 12 s"),
        Priority.STANDARD);

    assertThat(held.next()).isEqualTo(Tier.T1);
    assertThat(held.cause()).isEqualTo(Cause.HEALTHY);
    assertThat(held.reason()).endsWith("; step up to T0 held: ea/claude-opus-4-6: circuit open, its trial in 12 s");
    assertThat(decider.decide(Tier.T0, burnt(1000, 0, false, "anything"), Priority.STANDARD).next())
        .as("at T0 there is nothing to hold").isEqualTo(Tier.T0);
  }

  @Test
  void aReadingIsBuiltFromTheSlidingWindowAndTheBurnRates() {
    SliSnapshot snapshot = new SliSnapshot(60, 90, 4, 6, 3, 100, 300, 640);

    SliReading reading = SliReading.of(snapshot, new BurnRates(3.5, 7.25, 420));

    assertThat(reading).isEqualTo(new SliReading(640, 0.04, 0.06, 100, 3.5, 7.25, 420));
  }

  @Test
  void impossibleNumbersAreRefused() {
    assertThatThrownBy(() -> new SliReading(-1, 0, 0, 0, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SliReading(0, 1.5, 0, 0, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SliReading(0, 0, Double.NaN, 0, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SliReading(0, 0, 0, -1, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    // a healthy bound at or above its step-down bound leaves no band to hold in
    assertThatThrownBy(() -> new TierThresholds(14.4, Tier.T2, Tier.T3, 0.02, 0.05, 800, Tier.T2, 800, 0.005, 0.01, 2, 20))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("healthyP99Millis");
    assertThatThrownBy(() -> new TierThresholds(14.4, Tier.T2, Tier.T3, 2, 0.05, 800, Tier.T2, 500, 0.005, 0.01, 2, 20))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("serverErrorDown");
  }

  @Test
  void aSlowSliWindowWhoseShortWindowIsFastNeitherStepsDownNorHolds() {
    SliReading slowThenFast = new SliReading(1500, 0, 0, 1000, 0, 0, 1000).withFreshP99(60);

    TierDecision atT0 = decider.decide(Tier.T0, slowThenFast, Priority.STANDARD);
    assertThat(atT0.cause()).isEqualTo(Cause.HEALTHY);
    assertThat(atT0.reason()).startsWith("healthy: p99 1500 ms but 60 ms within the short window: over, 5xx 0.0%");

    TierDecision atT1 = decider.decide(Tier.T1, slowThenFast, Priority.STANDARD);
    assertThat(atT1.next()).as("latency recovered: one step up").isEqualTo(Tier.T0);
  }

  @Test
  void aSlowSliWindowStepsDownOnlyWhileTheShortWindowIsSlowToo() {
    SliReading slow = new SliReading(1500, 0, 0, 1000, 0, 0, 1000);
    assertThat(decider.decide(Tier.T0, slow.withFreshP99(900), Priority.STANDARD).next()).isEqualTo(Tier.T1);

    TierDecision middling = decider.decide(Tier.T1, slow.withFreshP99(600), Priority.STANDARD);
    assertThat(middling.cause()).as("short window between healthy and down: hold").isEqualTo(Cause.HOLD);
    assertThat(middling.reason()).contains("p99 1500 ms (600 ms within the short window) >= 500 ms");
    assertThat(decider.decide(Tier.T0, slow.withFreshP99(600), Priority.STANDARD).next()).isEqualTo(Tier.T0);
  }
}
