package dev.levee.core.throttle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class AdaptiveThrottleTest {

  /** A generator that always draws the same number, so a test can place it against p. */
  private static RandomGenerator constant(double value) {
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        throw new UnsupportedOperationException();
      }

      @Override
      public double nextDouble() {
        return value;
      }
    };
  }

  @Test
  void admitsEverythingWhileTheBackendAcceptsAtLeastOneInK() {
    ManualClock clock = new ManualClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.sreDefaults(clock, constant(0.0));

    for (int i = 0; i < 100; i++) {
      assertThat(throttle.tryAcquire()).isTrue();
      if (i % 2 == 0) {
        throttle.onAccepted(); // half accepted: requests = 2 · accepts, p stays 0
      }
    }

    assertThat(throttle.rejectionProbability()).isZero();
  }

  @Test
  void rejectsWithTheSreBookProbabilityWhenTheBackendRejects() {
    ManualClock clock = new ManualClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.sreDefaults(clock, constant(0.99));

    for (int i = 0; i < 99; i++) {
      throttle.tryAcquire(); // the backend accepts none of them
    }
    for (int i = 0; i < 10; i++) {
      throttle.onAccepted();
    }

    // max(0, (99 - 2 * 10) / (99 + 1))
    assertThat(throttle.rejectionProbability()).isCloseTo(0.79, within(1e-12));
  }

  @Test
  void aDrawBelowTheProbabilityRejectsLocallyButStillCountsAsARequest() {
    ManualClock clock = new ManualClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.sreDefaults(clock, constant(0.5));
    for (int i = 0; i < 99; i++) {
      throttle.tryAcquire(); // p grows towards 1 as nothing is accepted
    }

    assertThat(throttle.tryAcquire()).isFalse();
    assertThat(throttle.requests()).isEqualTo(100);
  }

  @Test
  void historyOlderThanTheWindowIsForgotten() {
    ManualClock clock = new ManualClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.sreDefaults(clock, constant(0.0));
    for (int i = 0; i < 50; i++) {
      throttle.tryAcquire();
    }
    assertThat(throttle.rejectionProbability()).isGreaterThan(0.9);

    clock.advance(Duration.ofSeconds(60));
    assertThat(throttle.requests()).as("still inside the 2-minute window").isEqualTo(50);

    clock.advance(Duration.ofSeconds(61));
    assertThat(throttle.requests()).isZero();
    assertThat(throttle.rejectionProbability()).isZero();
  }

  @Test
  void drawsNothingWhileTheProbabilityIsZero() {
    ManualClock clock = new ManualClock();
    AdaptiveThrottle throttle = AdaptiveThrottle.sreDefaults(clock, constant(Double.NaN) /* unused */);

    assertThat(throttle.tryAcquire()).isTrue();
  }
}
