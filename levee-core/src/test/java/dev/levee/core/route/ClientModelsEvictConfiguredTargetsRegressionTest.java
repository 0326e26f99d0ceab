package dev.levee.core.route;

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
 * Review 3: when the router's statistics and rate-limit tables became bounded (least used evicted),
 * the configured targets were not pinned, as the breakers pin them. A client naming a few thousand
 * models, each used a few times, evicted a configured target used less (a fallback, or a primary
 * paced while its bucket was empty): its failures were forgotten, so the router scored a failing
 * target as never called (success 1.0), and its empty bucket read as covered. One client's
 * invented names changed what every other client's requests got (DESIGN.md, "Where state lives").
 */
class ClientModelsEvictConfiguredTargetsRegressionTest {

  private static final Failure OVERLOADED = Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "Overloaded");
  private static final Target CONFIGURED = new Target("anthropic", "claude-configured");
  private static final int CLIENT_MODELS = 5 * RouterStatistics.MAX_TARGETS;

  private final ManualClock clock = new ManualClock();

  @Test
  void aConfiguredTargetsFailuresSurviveAFloodOfClientNamedModels() {
    RouterStatistics statistics = new RouterStatistics(StatisticsConfig.DEFAULT, clock, List.of(CONFIGURED));
    for (int i = 0; i < 3; i++) {
      statistics.onFailure(CONFIGURED, OVERLOADED, Duration.ofMillis(10));
    }
    for (int i = 0; i < CLIENT_MODELS; i++) {
      Target invented = new Target("anthropic", "invented-" + i);
      for (int use = 0; use < 8; use++) {
        statistics.onSuccess(invented, Duration.ofMillis(500));
      }
    }

    assertThat(statistics.read(CONFIGURED).outcomes()).as("old: evicted, read as never called").isEqualTo(3);
    assertThat(statistics.read(CONFIGURED).success()).as("old: 1.0, a target never called").isLessThan(1.0);
  }

  @Test
  void aConfiguredTargetsEmptyBucketSurvivesAFloodOfClientNamedModels() {
    RateLimits limits = new RateLimits(clock, List.of(CONFIGURED));
    limits.observe(CONFIGURED, requests(0));
    for (int i = 0; i < CLIENT_MODELS; i++) {
      Target invented = new Target("anthropic", "invented-" + i);
      for (int use = 0; use < 8; use++) {
        limits.observe(invented, requests(100));
      }
    }

    assertThat(limits.covers(CONFIGURED, 1)).as("old: evicted, its empty bucket read as covered").isFalse();
  }

  private static RateLimitReading requests(long remaining) {
    return new RateLimitReading(Optional.of(new RateLimitReading.Bucket(remaining, Duration.ofSeconds(60))),
        Optional.empty(), Optional.empty(), Optional.empty());
  }
}
