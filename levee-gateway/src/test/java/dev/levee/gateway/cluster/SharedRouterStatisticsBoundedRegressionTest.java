package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.core.chain.Target;
import dev.levee.core.route.RouterStatistics;
import dev.levee.core.route.StatisticsConfig;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.time.InstantSource;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Audit of what clients can grow: under {@code cluster:}, the router statistics' publisher
 * remembered what it last wrote of every target it ever published, so each model name a client
 * invented (one call each) left an entry after the bounded {@link RouterStatistics} table had
 * evicted the name. Given 10,000 invented names through the real statistics and publisher, the
 * publisher remembers no more targets than the statistics hold ({@link RouterStatistics#MAX_TARGETS}),
 * and a name evicted and called again is published again.
 */
class SharedRouterStatisticsBoundedRegressionTest {

  private static final int NAMES = 10_000;

  @AutoClose
  private final RedisFixture redis = new RedisFixture();

  @Test
  void thePublisherRemembersNoMoreTargetsThanTheStatisticsHold() throws Exception {
    ManualClock clock = new ManualClock();
    RouterStatistics statistics = new RouterStatistics(StatisticsConfig.DEFAULT, clock);
    Cluster cluster = redis.replica(SystemClock.ticker());
    // as Cluster.routerStatistics makes it, without its flusher: this test publishes in its place
    SharedRouterStatistics shared = new SharedRouterStatistics(statistics, cluster.link(),
        new SharedView<>(cluster.link(), SystemClock.ticker()), InstantSource.system(), cluster.replica());
    statistics.shareThrough(shared);

    int most = 0;
    for (int i = 0; i < NAMES; i++) {
      statistics.onSuccess(new Target("emu", "claude-invented-" + i), Duration.ofMillis(100));
      clock.advance(Duration.ofMillis(10));
      if (i % 100 == 99) {
        shared.publish(); // the flusher's one-second tick
        most = Math.max(most, shared.publishedCount());
      }
    }

    assertThat(most).as("targets remembered after publishing %d invented names", NAMES)
        .isLessThanOrEqualTo(RouterStatistics.MAX_TARGETS);
    Target first = new Target("emu", "claude-invented-0"); // evicted long ago
    statistics.onSuccess(first, Duration.ofMillis(100));
    shared.publish();
    assertThat(redis.keys("route:{" + first.id() + "}")).as("a returning name is published again").hasSize(1);
  }
}
