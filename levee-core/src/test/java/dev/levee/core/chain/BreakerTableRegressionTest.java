package dev.levee.core.chain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (issue 9, item 4): past 1,000 distinct model names every new name shared one
 * overflow breaker per upstream; four faults then opened it and a healthy, never-used model got
 * "circuit open" for the life of the process.
 */
class BreakerTableRegressionTest {

  private static final CircuitBreakerConfig FOUR_FAULTS = CircuitBreakerConfig.of(4, Duration.ofSeconds(30),
      Duration.ofSeconds(30));

  private final ManualClock clock = new ManualClock();
  private final Target configured = new Target("anthropic", "claude-configured");
  private final Breakers breakers = new Breakers(FOUR_FAULTS, clock, t -> { }, List.of(configured));

  @Test
  void faultsOnOneInventedNameNeverOpenABreakerOfAnotherModel() {
    inventNames(Breakers.MAX_TARGETS + 500);
    Target attacked = new Target("anthropic", "attacker-chosen");

    for (int i = 0; i < 4; i++) {
      fail(breakers.of(attacked));
    }

    assertThat(breakers.of(attacked).state()).isEqualTo(CircuitState.OPEN);
    CircuitBreaker healthy = breakers.of(new Target("anthropic", "claude-never-used"));
    assertThat(healthy.state()).isEqualTo(CircuitState.CLOSED);
    assertThat(healthy.name()).isEqualTo("anthropic/claude-never-used");
    assertThat(healthy.tryAcquire()).isInstanceOf(CircuitBreaker.Admitted.class);
  }

  @Test
  void theTableStaysBoundedAndCountsWhatItEvicts() {
    inventNames(Breakers.MAX_TARGETS + 500);

    assertThat(breakers.all()).hasSizeLessThanOrEqualTo(Breakers.MAX_TARGETS);
    assertThat(breakers.evictions()).isGreaterThanOrEqualTo(500);
  }

  @Test
  void anEvictedIdleBreakerIsRecreatedFresh() {
    Target invented = new Target("anthropic", "invented");
    CircuitBreaker open = breakers.of(invented);
    for (int i = 0; i < 4; i++) {
      fail(open);
    }
    assertThat(open.state()).isEqualTo(CircuitState.OPEN);

    clock.advance(breakers.idleFor().plusSeconds(1));

    CircuitBreaker fresh = breakers.of(invented);
    assertThat(fresh).isNotSameAs(open);
    assertThat(fresh.state()).isEqualTo(CircuitState.CLOSED);
    assertThat(fresh.snapshot().recentFailures()).isZero();
    assertThat(breakers.evictions()).isEqualTo(1);
  }

  @Test
  void aConfiguredTargetKeepsItsBreakerThroughFloodsAndIdleness() {
    CircuitBreaker mine = breakers.of(configured);
    fail(mine);

    inventNames(Breakers.MAX_TARGETS * 2);
    clock.advance(Duration.ofDays(2));

    assertThat(breakers.of(configured)).isSameAs(mine);
    assertThat(breakers.all()).containsKey(configured.id());
  }

  private void inventNames(int count) {
    for (int i = 0; i < count; i++) {
      breakers.of(new Target("anthropic", "invented-" + i));
    }
  }

  private static void fail(CircuitBreaker breaker) {
    if (breaker.tryAcquire() instanceof CircuitBreaker.Admitted admitted) {
      admitted.permit().failure();
    }
  }
}
