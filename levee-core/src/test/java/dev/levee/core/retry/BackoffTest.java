package dev.levee.core.retry;

import static dev.levee.core.testing.ScriptedRandom.ALMOST_ONE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.testing.ScriptedRandom;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Full jitter: {@code U(0, min(max, base · 2^n))}; overloaded: {@code min(max, 2 · base · 2^n ·
 * (1 + U(0,1)))}. Expected values are worked out by hand from those formulas with base 500 ms
 * and max 8 s.
 */
class BackoffTest {

  private static final Backoff BACKOFF = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(8));

  @ParameterizedTest(name = "retry {0}, U = {1} -> {2} ms")
  @CsvSource({
    // retry, draw, expected ms       ceiling = min(8000, 500 * 2^retry)
    "0, 0.0,     0", //                500
    "0, 0.5,   250", //                500
    "0, 0.75,  375", //                500
    "1, 0.5,   500", //               1000
    "2, 0.25,  500", //               2000
    "3, 0.5,  2000", //               4000
    "4, 0.75, 6000", //               8000
    "5, 0.5,  4000", //  16000 capped to 8000
    "40, 0.5, 4000", //  huge, capped to 8000
  })
  void fullJitterDrawsUniformlyBelowTheCappedExponentialCeiling(int retry, double u, long expectedMs) {
    assertThat(BACKOFF.delay(retry, false, ScriptedRandom.always(u))).isEqualTo(Duration.ofMillis(expectedMs));
  }

  @ParameterizedTest(name = "retry {0}, U = {1} -> {2} ms")
  @CsvSource({
    // retry, draw, expected ms       2 * 500 * 2^retry * (1 + U), capped at 8000
    "0, 0.0,   1000",
    "0, 0.5,   1500",
    "0, 0.75,  1750",
    "1, 0.0,   2000",
    "1, 0.5,   3000",
    "2, 0.0,   4000",
    "2, 0.75,  7000",
    "2, 0.5,   6000",
    "3, 0.0,   8000", //  8000, at the cap
    "3, 0.5,   8000", // 12000 capped
    "9, 0.25,  8000",
  })
  void overloadWaitsTwiceAsWideAndNeverNearZero(int retry, double u, long expectedMs) {
    assertThat(BACKOFF.delay(retry, true, ScriptedRandom.always(u))).isEqualTo(Duration.ofMillis(expectedMs));
  }

  @Test
  void fullJitterStaysBelowItsCeilingAtTheTopOfTheDraw() {
    Duration delay = BACKOFF.delay(2, false, ScriptedRandom.always(ALMOST_ONE));

    assertThat(delay).isLessThan(Duration.ofMillis(2000)).isGreaterThan(Duration.ofMillis(1999));
  }

  @Test
  void overloadWaitApproachesFourTimesTheCeilingAtTheTopOfTheDrawWhenUncapped() {
    Duration delay = BACKOFF.delay(1, true, ScriptedRandom.always(ALMOST_ONE));

    assertThat(delay).isLessThanOrEqualTo(Duration.ofMillis(4000)).isGreaterThan(Duration.ofMillis(3999));
  }

  @Test
  void eachDelayTakesExactlyOneDraw() {
    ScriptedRandom random = ScriptedRandom.of(0.5, 0.5);

    BACKOFF.delay(0, false, random);
    BACKOFF.delay(0, true, random);

    assertThat(random.taken()).isEqualTo(2);
  }

  @Test
  void theDefaultIsHalfASecondBaseAndEightSecondsCap() {
    assertThat(Backoff.DEFAULT).isEqualTo(new Backoff(Duration.ofMillis(500), Duration.ofSeconds(8)));
  }

  @Test
  void negativeDelaysAreRefused() {
    assertThatThrownBy(() -> new Backoff(Duration.ofMillis(-1), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Backoff(Duration.ofMillis(1), Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
