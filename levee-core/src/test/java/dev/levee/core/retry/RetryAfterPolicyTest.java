package dev.levee.core.retry;

import static dev.levee.core.testing.ScriptedRandom.ALMOST_ONE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.testing.ScriptedRandom;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A stated wait is sat out plus up to 10% jitter, unless it is longer than 60 s. */
class RetryAfterPolicyTest {

  private static final RetryAfterPolicy POLICY = RetryAfterPolicy.DEFAULT;

  @ParameterizedTest(name = "{0} ms stated, U = {1} -> {2} ms")
  @CsvSource({
    "2000,  0.0,  2000",
    "2000,  0.5,  2100",
    "2000,  0.25, 2050",
    "500,   0.5,   525",
    "60000, 0.5, 63000", // exactly the maximum is still waited out, with its jitter
    "0,     0.5,     0",
  })
  void theStatedWaitIsSatOutPlusUpToTenPercent(long statedMs, double u, long expectedMs) {
    assertThat(POLICY.waitFor(Duration.ofMillis(statedMs), ScriptedRandom.always(u)))
        .contains(Duration.ofMillis(expectedMs));
  }

  @Test
  void theJitterNeverReachesAFullTenPercent() {
    Duration wait = POLICY.waitFor(Duration.ofSeconds(2), ScriptedRandom.always(ALMOST_ONE)).orElseThrow();

    assertThat(wait).isLessThan(Duration.ofMillis(2200)).isGreaterThan(Duration.ofMillis(2199));
  }

  @Test
  void aStatedWaitLongerThanTheMaximumIsNotWaitedOut() {
    ScriptedRandom random = ScriptedRandom.of(); // no draw expected

    assertThat(POLICY.waitFor(Duration.ofSeconds(60).plusMillis(1), random)).isEqualTo(Optional.empty());
  }

  @Test
  void theMaximumAndTheJitterAreConfigurable() {
    RetryAfterPolicy policy = new RetryAfterPolicy(Duration.ofSeconds(5), 0.5);

    assertThat(policy.waitFor(Duration.ofSeconds(4), ScriptedRandom.always(0.5))).contains(Duration.ofSeconds(5));
    assertThat(policy.waitFor(Duration.ofSeconds(6), ScriptedRandom.always(0.5))).isEmpty();
  }

  @Test
  void noJitterMeansExactlyTheStatedWait() {
    RetryAfterPolicy policy = new RetryAfterPolicy(Duration.ofSeconds(60), 0);

    assertThat(policy.waitFor(Duration.ofMillis(1234), ScriptedRandom.always(ALMOST_ONE)))
        .contains(Duration.ofMillis(1234));
  }

  @Test
  void jitterOutsideZeroToOneIsRefused() {
    assertThatThrownBy(() -> new RetryAfterPolicy(Duration.ofSeconds(1), 1.5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetryAfterPolicy(Duration.ofSeconds(1), -0.1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetryAfterPolicy(Duration.ofSeconds(1), Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetryAfterPolicy(Duration.ofSeconds(-1), 0.1)).isInstanceOf(IllegalArgumentException.class);
  }
}
