package dev.levee.core.cooldown;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Audit of what clients can grow: the cooldowns hold at most {@link RateLimitCooldowns#MAX_TARGETS}
 * cooling targets, and past that a signal for yet another target was ignored — a configured one's
 * too. A client naming 10,000 invented models answered 429 with a 15-minute {@code retry-after}
 * filled the table, and the configured primary's own 429 then cooled nothing: every request went on
 * spending an attempt on it. Configured targets are kept outside the bound, as the breakers keep
 * theirs; the bound on the others holds.
 */
class ConfiguredTargetCoolsPastTheBoundRegressionTest {

  private static final Target PRIMARY = Target.parse("anthropic/claude-opus-4-6");

  private static Failure rateLimited(Duration retryAfter) {
    return new Failure(FailureKind.RATE_LIMITED, 429, "rate_limit_error", "slow down", Optional.of(retryAfter),
        Optional.empty());
  }

  @Test
  void aConfiguredTargetCoolsWhileInventedNamesFillTheTable() {
    ManualClock clock = new ManualClock();
    RateLimitCooldowns cooldowns = new RateLimitCooldowns(clock, List.of(PRIMARY));
    for (int i = 0; i < 10_000; i++) {
      cooldowns.onFailure(new Target("anthropic", "claude-invented-" + i), rateLimited(Duration.ofMinutes(15)),
          Duration.ZERO);
      clock.advance(Duration.ofMillis(10));
    }

    cooldowns.onFailure(PRIMARY, rateLimited(Duration.ofSeconds(30)), Duration.ZERO);

    assertThat(cooldowns.remaining(PRIMARY)).isEqualTo(Duration.ofSeconds(30));
    assertThat(cooldowns.snapshot()).hasSizeLessThanOrEqualTo(RateLimitCooldowns.MAX_TARGETS + 1);
  }
}
