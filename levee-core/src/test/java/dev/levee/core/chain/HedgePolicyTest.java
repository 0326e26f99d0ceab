package dev.levee.core.chain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The hedge delay: fixed, or the first target's measured p95 with a floor and a default. */
class HedgePolicyTest {

  @Test
  void aFixedDelayIgnoresWhatIsMeasured() {
    HedgePolicy policy = HedgePolicy.after(Duration.ofSeconds(2));

    assertThat(policy.delay(1000, Duration.ofMillis(300))).isEqualTo(Duration.ofSeconds(2));
    assertThat(policy).hasToString("2000ms");
  }

  @Test
  void p95IsTheMeasuredPercentileOnceEnoughCallsWereMeasured() {
    HedgePolicy policy = HedgePolicy.atP95();

    assertThat(policy.delay(HedgePolicy.P95_MIN_CALLS, Duration.ofMillis(740))).isEqualTo(Duration.ofMillis(740));
    assertThat(policy).hasToString("p95");
  }

  @Test
  void p95FallsBackToItsDefaultWhileTooLittleIsMeasured() {
    HedgePolicy policy = HedgePolicy.atP95();

    assertThat(policy.delay(HedgePolicy.P95_MIN_CALLS - 1, Duration.ofMillis(740)))
        .isEqualTo(HedgePolicy.P95_UNMEASURED);
    assertThat(policy.delay(0, null)).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void p95NeverGoesBelowItsFloor() {
    assertThat(HedgePolicy.atP95().delay(500, Duration.ofMillis(3))).isEqualTo(HedgePolicy.P95_FLOOR);
  }

  @Test
  void aFixedDelayMustBePositive() {
    assertThatThrownBy(() -> HedgePolicy.after(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("positive");
  }
}
