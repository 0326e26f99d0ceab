package dev.levee.core.throttle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RetryThrottleTest {

  @Test
  void startsFullAndAllowsRetries() {
    RetryThrottle throttle = new RetryThrottle(10, 0.1);

    assertThat(throttle.tokens()).isEqualTo(10.0);
    assertThat(throttle.isRetryAllowed()).isTrue();
  }

  @Test
  void everyFailureTakesOneTokenAndRetriesStopAtHalf() {
    RetryThrottle throttle = new RetryThrottle(10, 0.1);

    for (int i = 0; i < 4; i++) {
      throttle.onFailure();
    }
    assertThat(throttle.tokens()).isEqualTo(6.0);
    assertThat(throttle.isRetryAllowed()).isTrue();

    throttle.onFailure();
    assertThat(throttle.tokens()).isEqualTo(5.0);
    assertThat(throttle.isRetryAllowed()).as("retries need more than max/2 tokens (gRFC A6)").isFalse();
  }

  @Test
  void successesRefillByTheRatioUpToMax() {
    RetryThrottle throttle = new RetryThrottle(10, 0.1);
    for (int i = 0; i < 5; i++) {
      throttle.onFailure();
    }

    throttle.onSuccess();
    assertThat(throttle.tokens()).isEqualTo(5.1);
    assertThat(throttle.isRetryAllowed()).isTrue();

    for (int i = 0; i < 1000; i++) {
      throttle.onSuccess();
    }
    assertThat(throttle.tokens()).isEqualTo(10.0);
  }

  @Test
  void tokensNeverGoBelowZero() {
    RetryThrottle throttle = new RetryThrottle(2, 0.5);
    for (int i = 0; i < 10; i++) {
      throttle.onFailure();
    }

    assertThat(throttle.tokens()).isZero();
    throttle.onSuccess();
    assertThat(throttle.tokens()).isEqualTo(0.5);
  }

  @Test
  void ratioKeepsThreeDecimalsAsGrfcA6Says() {
    RetryThrottle throttle = new RetryThrottle(10, 0.0004);

    assertThat(throttle.tokenRatio()).isEqualTo(0.001);
  }

  @Test
  void refusesSettingsOutsideGrfcA6Ranges() {
    assertThatThrownBy(() -> new RetryThrottle(0, 0.1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetryThrottle(1001, 0.1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetryThrottle(10, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RetryThrottle(10, 1.5)).isInstanceOf(IllegalArgumentException.class);
  }
}
