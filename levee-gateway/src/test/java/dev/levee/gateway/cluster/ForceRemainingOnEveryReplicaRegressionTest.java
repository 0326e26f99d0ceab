package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.tier.TierBoard;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Newcomer trial: a tier forced for 10 minutes through replica A showed {@code forced_remaining_ms:
 * 0} in {@code /admin/tiers} on replica B, which served the force all the same: B read the shared
 * force's tier but not its end. The force's key carries its end as its time to live; every replica
 * now shows the time left.
 */
class ForceRemainingOnEveryReplicaRegressionTest {

  private static final List<Target> SMART = List.of(Target.parse("anthropic/claude-a"));

  private final RedisFixture redis = new RedisFixture();
  private final ManualClock clock = new ManualClock();

  @AfterEach
  void cleanUp() {
    redis.close();
  }

  private TierBoard board() throws Exception {
    GatewayConfig config = new ConfigLoader(Map.<String, String>of()::get).parse("""
        upstreams:
          anthropic: { url: "https://api.anthropic.com" }
        models:
          smart: { chain: [anthropic/claude-a] }
        """, "test.yaml");
    TierBoard board = new TierBoard(config, clock, clock, InstantSource.system(), (delay, task) -> () -> { });
    board.shareThrough(redis.replica(clock).tiers());
    return board;
  }

  private static JsonNode feature(TierBoard board, String name) {
    for (JsonNode f : board.status()) {
      if (f.get("feature").asText().equals(name)) {
        return f;
      }
    }
    throw new AssertionError("no feature " + name + " in " + board.status());
  }

  @Test
  void anotherReplicaShowsTheTimeLeftOnAForce() throws Exception {
    try (TierBoard a = board(); TierBoard b = board()) {
      a.force("default", Tier.T2, Duration.ofMinutes(10));
      assertThat(RedisFixture.eventually(Duration.ofSeconds(2), () -> b.tier("default", "smart", SMART) == Tier.T2))
          .as("the force reaches the other replica").isTrue();

      JsonNode onB = feature(b, "default");

      assertThat(onB.get("tier").asText()).isEqualTo("T2");
      assertThat(onB.get("forced_remaining_ms").asLong()).as("old: 0 on B: %s", onB)
          .isBetween(Duration.ofMinutes(9).toMillis(), Duration.ofMinutes(10).toMillis());
      assertThat(feature(a, "default").get("forced_remaining_ms").asLong())
          .isBetween(Duration.ofMinutes(9).toMillis(), Duration.ofMinutes(10).toMillis());
    }
  }
}
