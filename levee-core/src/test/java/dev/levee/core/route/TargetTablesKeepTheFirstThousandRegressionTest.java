package dev.levee.core.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Review: the router's statistics and its rate-limit table kept the first {@value
 * RouterStatistics#MAX_TARGETS} targets they saw for good, and every target after those shared one
 * entry per upstream; over weeks of churn (model names retired, invented, misspelt) a new target got
 * no statistics or limits of its own, and one target's failures or empty bucket were read as
 * another's. Both tables now evict the least used and forget the idle.
 */
class TargetTablesKeepTheFirstThousandRegressionTest {

  private static final Failure OVERLOADED = Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "Overloaded");

  private final ManualClock clock = new ManualClock();

  @Test
  void routerStatisticsTrackATargetSeenAfterAThousandOthers() {
    RouterStatistics statistics = new RouterStatistics(StatisticsConfig.DEFAULT, clock);
    churn(statistics, "old-", RouterStatistics.MAX_TARGETS);
    Target failing = new Target("anthropic", "claude-new-failing");
    Target healthy = new Target("anthropic", "claude-new-healthy");

    for (int i = 0; i < 5; i++) {
      statistics.onFailure(failing, OVERLOADED, Duration.ofMillis(10));
    }
    statistics.onSuccess(healthy, Duration.ofMillis(800));
    churn(statistics, "later-", 2 * RouterStatistics.MAX_TARGETS); // more churn after: used targets stay

    assertThat(statistics.readings()).as("old: only anthropic/* past the first 1,000")
        .containsKeys(failing.id(), healthy.id()).hasSizeLessThanOrEqualTo(RouterStatistics.MAX_TARGETS);
    assertThat(statistics.read(failing).outcomes()).isEqualTo(5);
    assertThat(statistics.read(healthy).success()).as("old: the failing target's failures").isEqualTo(1.0);
    assertThat(statistics.read(healthy).outcomes()).isEqualTo(1);
  }

  @Test
  void routerStatisticsForgetATargetIdleForTenHalfLives() {
    RouterStatistics statistics = new RouterStatistics(StatisticsConfig.DEFAULT, clock);
    Target target = new Target("anthropic", "claude-retired");
    statistics.onFailure(target, OVERLOADED, Duration.ofMillis(10));
    assertThat(statistics.idleFor()).isEqualTo(StatisticsConfig.DEFAULT.halfLife().multipliedBy(10));

    clock.advance(statistics.idleFor());

    assertThat(statistics.readings()).doesNotContainKey(target.id());
    assertThat(statistics.read(target).measured()).isFalse();
  }

  @Test
  void rateLimitsTrackATargetSeenAfterAThousandOthers() {
    RateLimits limits = new RateLimits(clock);
    RateLimitReading plenty = requests(100);
    for (int i = 0; i < RateLimits.MAX_TARGETS; i++) {
      limits.observe(new Target("anthropic", "old-" + i), plenty);
    }
    Target exhausted = new Target("anthropic", "claude-new-exhausted");
    Target fresh = new Target("anthropic", "claude-new-fresh");

    limits.observe(exhausted, requests(0));
    limits.observe(fresh, plenty);

    assertThat(limits.covers(exhausted, 1)).isFalse();
    assertThat(limits.covers(fresh, 1)).as("old: the exhausted target's empty bucket").isTrue();
  }

  private static void churn(RouterStatistics statistics, String prefix, int count) {
    for (int i = 0; i < count; i++) {
      statistics.onSuccess(new Target("anthropic", prefix + i), Duration.ofMillis(500));
    }
  }

  private static RateLimitReading requests(long remaining) {
    return new RateLimitReading(Optional.of(new RateLimitReading.Bucket(remaining, Duration.ofSeconds(60))),
        Optional.empty(), Optional.empty(), Optional.empty());
  }
}
