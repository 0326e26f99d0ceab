package dev.levee.core.chain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.Transition;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BreakersTest {

  private final ManualClock clock = new ManualClock();
  private final List<Transition> heard = new ArrayList<>();
  private final Breakers breakers = new Breakers(
      CircuitBreakerConfig.of(1, Duration.ofSeconds(10), Duration.ofSeconds(10)), clock, heard::add);

  @Test
  void eachTargetHasOneBreakerNamedAfterIt() {
    Target a = Target.parse("anthropic/claude-a");

    CircuitBreaker first = breakers.of(a);

    assertThat(breakers.of(new Target("anthropic", "claude-a"))).isSameAs(first);
    assertThat(first.name()).isEqualTo("anthropic/claude-a");
    assertThat(breakers.of(Target.parse("anthropic/claude-b"))).isNotSameAs(first);
  }

  @Test
  void theListenerHearsTheTransitionsOfEveryBreaker() {
    for (String id : List.of("up/b", "up/a")) {
      ((CircuitBreaker.Admitted) breakers.of(Target.parse(id)).tryAcquire()).permit().failure();
    }

    assertThat(heard).extracting(Transition::breaker).containsExactly("up/b", "up/a");
  }

  @Test
  void allListsTheBreakersCreatedSoFarByTargetId() {
    breakers.of(Target.parse("up/b"));
    breakers.of(Target.parse("up/a"));

    assertThat(breakers.all()).containsOnlyKeys("up/a", "up/b");
    assertThat(breakers.all().keySet()).containsExactly("up/a", "up/b");
  }

  @Test
  void anUnconfiguredTargetsBreakerIsKeptForAtLeastItsWindowAndOpenPeriod() {
    Breakers slow = new Breakers(CircuitBreakerConfig.of(3, Duration.ofMinutes(30), Duration.ofHours(1)), clock, t -> { });

    assertThat(breakers.idleFor()).isEqualTo(Breakers.MIN_IDLE);
    assertThat(slow.idleFor()).isEqualTo(Duration.ofMinutes(90));
  }
}
