package dev.levee.gateway.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.sli.SliSnapshot;
import java.time.Duration;
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

  /** The word, no trial having closed the circuit lately, its open period (if OPEN) running. */
  private static String health(boolean everCalled, CircuitState state, SliSnapshot window) {
    return HealthReport.health(everCalled, false, new CircuitBreaker.Snapshot(state, Duration.ofSeconds(5), 0), window);
  }

  @Test
  void threeFailuresOfThreeAreNotHealthy() {
    assertThat(health(true, CircuitState.CLOSED, window(0, 3))).isEqualTo("insufficient_data");
    assertThat(health(true, CircuitState.CLOSED, window(3, 1))).isEqualTo("insufficient_data");
  }

  @Test
  void theOtherWordsAreAsBefore() {
    assertThat(health(false, CircuitState.CLOSED, window(0, 0))).isEqualTo("unknown");
    assertThat(health(true, CircuitState.CLOSED, window(0, 0))).as("no call this minute").isEqualTo("healthy");
    assertThat(health(true, CircuitState.CLOSED, window(3, 0))).isEqualTo("healthy");
    assertThat(health(true, CircuitState.CLOSED, window(0, 5))).isEqualTo("degraded");
    assertThat(health(true, CircuitState.CLOSED, window(19, 1))).as("95% is enough").isEqualTo("healthy");
    assertThat(health(true, CircuitState.HALF_OPEN, window(3, 0))).isEqualTo("degraded");
    assertThat(health(true, CircuitState.OPEN, window(0, 3))).isEqualTo("unhealthy");
  }

  @Test
  void aFewFailuresRightAfterATrialClosedTheCircuitTakeTheBreakersWord() {
    CircuitBreaker.Snapshot closed = new CircuitBreaker.Snapshot(CircuitState.CLOSED, Duration.ZERO, 0);
    assertThat(HealthReport.health(true, true, closed, window(1, 1))).isEqualTo("healthy");
    assertThat(HealthReport.health(true, true, closed, window(1, 4))).as("5 calls: the rate decides").isEqualTo("degraded");
  }

  @Test
  void anOpenCircuitWithNoFreshCallAwaitsItsTrial() {
    CircuitBreaker.Snapshot due = new CircuitBreaker.Snapshot(CircuitState.OPEN, Duration.ZERO, 0);
    assertThat(HealthReport.health(true, false, due, window(0, 0))).isEqualTo("awaiting_trial");
    assertThat(HealthReport.health(true, false, due, window(0, 1))).as("a fresh failure").isEqualTo("unhealthy");
  }
}
