package dev.levee.core.tier;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Newcomer trial: {@code last_reason} read {@code "quiet: 1 calls < 20, none failed, at T0"}, a
 * stale burn ended in {@code "…short window: over: one step up"}, and a healthy T0 with no burn
 * still said {@code "burn 0.0 (5m)"} (a burn rate without its unit, where there was nothing to
 * say). Now the counts agree with their nouns, the burn names its unit and windows, and a burn
 * is shown only when there is one.
 */
class TierReasonsReadAsSentencesRegressionTest {

  private final TierDecider decider = new TierDecider();

  /** {@code calls} API calls, none failed, and a burn of {@code burn1h} and {@code burn5m}. */
  private static SliReading reading(long calls, double burn1h, double burn5m, boolean clientsFailLately) {
    return new SliReading(120, 0, 0, calls, burn1h, burn5m, 1000, 0, "", true, clientsFailLately, "");
  }

  @Test
  void oneCallIsOneCall() {
    String reason = decider.decide(Tier.T0, reading(1, 0, 0, false), Priority.STANDARD).reason();

    assertThat(reason).isEqualTo("quiet: 1 call, fewer than the 20 needed to judge, none failed, already at T0");
  }

  @Test
  void aHealthyT0WithoutBurnSaysNothingOfABurn() {
    String reason = decider.decide(Tier.T0, reading(1000, 0, 0, false), Priority.STANDARD).reason();

    assertThat(reason).isEqualTo("healthy: p99 120 ms, 5xx 0.0%, 429 0.0%, already at T0").doesNotContain("burn");
  }

  @Test
  void aBurnNamesItsUnitAndWindow() {
    String small = decider.decide(Tier.T0, reading(1000, 1.2, 1.9, true), Priority.STANDARD).reason();
    String over = decider.decide(Tier.T1, reading(1000, 30, 30, false), Priority.STANDARD).reason();

    assertThat(small).isEqualTo("healthy: p99 120 ms, 5xx 0.0%, 429 0.0%, error-budget burn 1.9x over 5 min,"
        + " already at T0");
    assertThat(over).startsWith("healthy: p99 120 ms, 5xx 0.0%, 429 0.0%, error-budget burn 30.0x over 5 min, but no"
        + " client failed within the short window: that outage is over: one step up, T1 -> T0").doesNotContain("window: over");
  }
}
