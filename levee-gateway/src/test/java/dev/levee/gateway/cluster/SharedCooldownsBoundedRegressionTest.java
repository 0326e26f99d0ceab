package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.core.chain.Target;
import dev.levee.core.cooldown.RateLimitCooldowns;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Audit of what clients can grow: levee-core's cooldowns keep at most {@link
 * RateLimitCooldowns#MAX_TARGETS} cooling targets, but they pass every 429 on to the cluster's
 * cooldowns, whose local table kept every target cooling at once, with no bound but the
 * upstream's waits: 10,000 invented names answered 429 with a 15-minute {@code retry-after} within
 * two minutes held 10,000 entries on each replica. Now the local table keeps at most as many as
 * levee-core does; a name past it still cools, through Redis.
 */
class SharedCooldownsBoundedRegressionTest {

  private static final int NAMES = 10_000;

  @AutoClose
  private final RedisFixture redis = new RedisFixture();

  @Test
  void theLocalTableKeepsNoMoreCoolingTargetsThanTheCoreDoes() throws Exception {
    ManualClock clock = new ManualClock();
    Cluster cluster = redis.replica(SystemClock.ticker());
    RateLimitCooldowns cooldowns = new RateLimitCooldowns(clock);
    cooldowns.shareThrough(cluster.cooldownSharing());
    Failure limited = new Failure(FailureKind.RATE_LIMITED, 429, "rate_limit_error", "Rate limited",
        Optional.of(Duration.ofMinutes(15)), Optional.empty());

    int most = 0;
    for (int i = 0; i < NAMES; i++) {
      cooldowns.onFailure(new Target("emu", "claude-r-" + i), limited, Duration.ofMillis(20));
      clock.advance(Duration.ofMillis(10));
      most = Math.max(most, cluster.cooldowns().localCount());
    }

    assertThat(most).as("cooling targets held locally, %d names cooling at once", NAMES)
        .isLessThanOrEqualTo(RateLimitCooldowns.MAX_TARGETS);
    assertThat(cooldowns.remaining(new Target("emu", "claude-r-" + (NAMES - 1))))
        .as("a name past the bound still cools, through Redis").isPositive();
  }
}
