package dev.levee.core.breaker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression: a transition's reason (the gateway logs it as {@code circuit … CLOSED -> OPEN: …})
 * printed durations as ISO-8601, {@code 3 failures within PT10S} and {@code open for PT30S}.
 * Found by a newcomer trial; they now read as the config writes them.
 */
class BreakerReasonSpansRegressionTest {

  @Test
  void reasonsWriteDurationsAsTheConfigDoes() {
    ManualClock clock = new ManualClock();
    List<Transition> transitions = new ArrayList<>();
    CircuitBreaker breaker = new CircuitBreaker("up/claude-test",
        CircuitBreakerConfig.of(3, Duration.ofSeconds(10), Duration.ofSeconds(90)), clock);
    breaker.onTransition(transitions::add);

    for (int i = 0; i < 3; i++) {
      ((CircuitBreaker.Admitted) breaker.tryAcquire()).permit().failure();
    }
    clock.advance(Duration.ofSeconds(90));
    breaker.tryAcquire();

    assertThat(transitions).extracting(Transition::reason)
        .containsExactly("3 failures within 10s", "open for 1m30s, admitting trials");
  }
}
