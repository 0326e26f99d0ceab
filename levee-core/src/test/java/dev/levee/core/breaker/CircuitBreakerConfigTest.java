package dev.levee.core.breaker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Named profiles, defaults and validation of {@link CircuitBreakerConfig}. */
class CircuitBreakerConfigTest {

  @ParameterizedTest(name = "{0}: {1} failures in {2} s, open {3} s")
  @CsvSource({
    "default,     5, 30,  30",
    "batch,       3, 60, 120",
    "interactive, 7, 30,  30",
    "admin,      10, 60,  60",
  })
  void eachNamedProfileHasTheSettingsOfTheIssue(String name, int failures, long windowS, long openS) {
    CircuitBreakerConfig config = CircuitBreakerConfig.profile(name);

    assertThat(config).isEqualTo(new CircuitBreakerConfig(
        failures, Duration.ofSeconds(windowS), Duration.ofSeconds(openS), 1, 2));
  }

  @Test
  void theDefaultConstantIsTheDefaultProfile() {
    assertThat(CircuitBreakerConfig.DEFAULT).isEqualTo(CircuitBreakerConfig.profile("default"));
  }

  @Test
  void profileNamesAreMatchedWithoutRegardToCase() {
    assertThat(CircuitBreakerConfig.profile("Batch")).isEqualTo(CircuitBreakerConfig.profile("batch"));
  }

  @Test
  void anUnknownProfileIsRefusedWithTheKnownNames() {
    assertThatThrownBy(() -> CircuitBreakerConfig.profile("bulk"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bulk")
        .hasMessageContaining("admin, batch, default, interactive");
  }

  @Test
  void ofDefaultsToOneHalfOpenTrialAndTwoSuccessesToClose() {
    CircuitBreakerConfig config = CircuitBreakerConfig.of(4, Duration.ofSeconds(1), Duration.ofSeconds(2));

    assertThat(config.halfOpenTrials()).isEqualTo(1);
    assertThat(config.closeAfter()).isEqualTo(2);
  }

  @Test
  void withersChangeOnlyTheirOwnSetting() {
    CircuitBreakerConfig config = CircuitBreakerConfig.DEFAULT.withHalfOpenTrials(3).withCloseAfter(4);

    assertThat(config).isEqualTo(new CircuitBreakerConfig(5, Duration.ofSeconds(30), Duration.ofSeconds(30), 3, 4));
  }

  @Test
  void nonsensicalSettingsAreRefused() {
    Duration s = Duration.ofSeconds(1);
    assertThatThrownBy(() -> new CircuitBreakerConfig(0, s, s, 1, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CircuitBreakerConfig(1, Duration.ZERO, s, 1, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CircuitBreakerConfig(1, s, Duration.ZERO, 1, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CircuitBreakerConfig(1, s, s, 0, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CircuitBreakerConfig(1, s, s, 1, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
