package dev.levee.gateway.cluster;

import static dev.levee.gateway.cluster.RedisFixture.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.route.RouterStatistics;
import dev.levee.core.route.StatisticsConfig;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** Router statistics merged across two replicas through the real Redis (issue 14). */
class SharedRouterStatisticsTest {

  private static final Target OPUS = new Target("emu", "claude-opus-4-6");
  private static final Target HAIKU = new Target("emu", "claude-haiku-4-5");

  @AutoClose
  private final RedisFixture redis = new RedisFixture();

  private RouterStatistics sharedReplica() throws InterruptedException {
    RouterStatistics statistics = new RouterStatistics(StatisticsConfig.DEFAULT, SystemClock.ticker());
    Cluster cluster = redis.replica(SystemClock.ticker());
    statistics.shareThrough(cluster.routerStatistics(statistics, InstantSource.system()));
    return statistics;
  }

  private static Failure overloaded() {
    return new Failure(FailureKind.OVERLOADED, 529, "overloaded_error", "Overloaded", Optional.empty(),
        Optional.empty());
  }

  @Test
  void failuresOnOneReplicaLowerTheOthersReadingWhileItsOwnSuccessesStillCount() throws Exception {
    RouterStatistics a = sharedReplica();
    RouterStatistics b = sharedReplica();
    for (int i = 0; i < 30; i++) {
      a.onFailure(OPUS, overloaded(), Duration.ofMillis(50));
    }
    for (int i = 0; i < 5; i++) {
      b.onSuccess(OPUS, Duration.ofMillis(200));
    }
    b.onSuccess(HAIKU, Duration.ofMillis(100));
    double aAlone = a.readLocal(OPUS).success();
    assertThat(aAlone).isLessThan(0.1);

    assertThat(eventually(Duration.ofSeconds(5), () -> b.read(OPUS).success() < 0.5))
        .as("b's reading of opus drops within 5 s (published every 1 s): " + b.read(OPUS)).isTrue();

    double merged = b.read(OPUS).success();
    // weights: a min(30, 19) = 19 at ~0.04, b 5 at 1.0 → (19 × 0.04 + 5) / 24 ≈ 0.24
    assertThat(merged).as("b's own successes still count").isGreaterThan(aAlone + 0.1);
    assertThat(b.readLocal(OPUS).success()).as("b's own reading is untouched").isEqualTo(1.0);
    assertThat(b.read(OPUS).p95()).as("only b measured latency").isEqualTo(Duration.ofMillis(200));
    assertThat(b.read(HAIKU).success()).as("only the failing target").isEqualTo(1.0);
    assertThat(eventually(Duration.ofSeconds(5), () -> a.read(OPUS).success() > aAlone + 0.1))
        .as("and a sees b's successes").isTrue();
  }

  @Test
  void withRedisAwayEachReplicaReadsOnlyItsOwn() throws Exception {
    ClusterConfig away = ClusterConfig.of("redis://127.0.0.1:" + RedisFixture.freePort(), redis.config.name())
        .withTimeouts(Duration.ofMillis(100), Duration.ofMillis(50));
    RouterStatistics statistics = new RouterStatistics(StatisticsConfig.DEFAULT, SystemClock.ticker());
    Cluster cluster = redis.replica(away, SystemClock.ticker(), false);
    statistics.shareThrough(cluster.routerStatistics(statistics, InstantSource.system()));
    statistics.onFailure(OPUS, overloaded(), Duration.ofMillis(50));

    // one failure: 0.9 locally; nothing merged in (the EMA ages by nanoseconds between the two reads)
    assertThat(statistics.read(OPUS).success()).isCloseTo(statistics.readLocal(OPUS).success(), within(1e-6));
    assertThat(statistics.read(OPUS).success()).isCloseTo(0.9, within(1e-6));
  }
}
