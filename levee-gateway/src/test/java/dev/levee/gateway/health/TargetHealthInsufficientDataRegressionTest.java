package dev.levee.gateway.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitState;
import dev.levee.core.sli.SliSnapshot;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): a target whose 3 calls of the last minute had all failed showed
 * {@code "health": "healthy"} in {@code /health}, because the success rate is judged only over at
 * least 5 calls. Under that volume, a failing target now says {@code insufficient_data} (with its
 * {@code calls} and {@code failed} beside it), never {@code healthy}.
 */
class TargetHealthInsufficientDataRegressionTest {

  private static SliSnapshot window(long successes, long serverErrors) {
    return new SliSnapshot(60, successes, serverErrors, 0, 0, 0, 0, 0);
  }

  @Test
  void threeFailuresOfThreeAreNotHealthy() {
    assertThat(HealthReport.health(true, CircuitState.CLOSED, window(0, 3))).isEqualTo("insufficient_data");
    assertThat(HealthReport.health(true, CircuitState.CLOSED, window(3, 1))).isEqualTo("insufficient_data");
  }

  @Test
  void theOtherWordsAreAsBefore() {
    assertThat(HealthReport.health(false, CircuitState.CLOSED, window(0, 0))).isEqualTo("unknown");
    assertThat(HealthReport.health(true, CircuitState.CLOSED, window(0, 0))).as("no call this minute").isEqualTo("healthy");
    assertThat(HealthReport.health(true, CircuitState.CLOSED, window(3, 0))).isEqualTo("healthy");
    assertThat(HealthReport.health(true, CircuitState.CLOSED, window(0, 5))).isEqualTo("degraded");
    assertThat(HealthReport.health(true, CircuitState.CLOSED, window(19, 1))).as("95% is enough").isEqualTo("healthy");
    assertThat(HealthReport.health(true, CircuitState.HALF_OPEN, window(3, 0))).isEqualTo("degraded");
    assertThat(HealthReport.health(true, CircuitState.OPEN, window(0, 3))).isEqualTo("unhealthy");
  }
}
