package dev.levee.core.tier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class TierTest {

  @ParameterizedTest(name = "{0}.down({1}) = {2}")
  @CsvSource(textBlock = """
      T0, 0, T0
      T0, 1, T1
      T0, 2, T2
      T1, 2, T3
      T2, 5, T3
      T3, 1, T3
      T0, 2147483647, T3
      """)
  void downSaturatesAtT3(Tier from, int steps, Tier expected) {
    assertThat(from.down(steps)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}.up() = {1}")
  @CsvSource(textBlock = """
      T3, T2
      T2, T1
      T1, T0
      T0, T0
      """)
  void upSaturatesAtT0(Tier from, Tier expected) {
    assertThat(from.up()).isEqualTo(expected);
  }

  @Test
  void lowerMeansMoreDegraded() {
    assertThat(Tier.T2.isBelow(Tier.T1)).isTrue();
    assertThat(Tier.T1.isBelow(Tier.T2)).isFalse();
    assertThat(Tier.T1.isBelow(Tier.T1)).isFalse();
    assertThat(Tier.lowest(Tier.T1, Tier.T3)).isEqualTo(Tier.T3);
    assertThat(Tier.lowest(Tier.T2, Tier.T0)).isEqualTo(Tier.T2);
  }

  @Test
  void negativeStepsAreRefused() {
    assertThatThrownBy(() -> Tier.T1.down(-1)).isInstanceOf(IllegalArgumentException.class);
  }
}
