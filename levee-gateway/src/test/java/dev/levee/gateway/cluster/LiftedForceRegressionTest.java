package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.tier.TierBoard;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Newcomer trial: a tier forced through replica A and lifted through replica B (an operator behind
 * a load balancer) stayed forced on A, the replica that set it, for the rest of the force's
 * duration (up to 24 h), though Redis no longer held it: A's own copy of the force won over the
 * shared state. Now the shared state decides on every replica while Redis answers.
 */
class LiftedForceRegressionTest {

  private static final List<Target> SMART = List.of(Target.parse("anthropic/claude-a"));

  @AutoClose
  private final RedisFixture redis = new RedisFixture();
  private final ManualClock clock = new ManualClock();

  private TierBoard board() throws Exception {
    return redis.board("""
        upstreams:
          anthropic: { url: "https://api.anthropic.com" }
        models:
          smart: { chain: [anthropic/claude-a] }
        """, clock);
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
  void aForceLiftedOnAnotherReplicaEndsOnTheReplicaThatSetIt() throws Exception {
    try (TierBoard a = board(); TierBoard b = board()) {
      a.force("default", Tier.T2, Duration.ofMinutes(1));
      assertThat(RedisFixture.eventually(Duration.ofSeconds(2), () -> b.tier("default", "smart", SMART) == Tier.T2))
          .as("the force reaches the other replica").isTrue();

      b.clearForce("default");

      assertThat(RedisFixture.eventually(Duration.ofSeconds(2), () -> {
        clock.advance(Duration.ofMillis(60)); // past the view TTL (virtual time), far from the force's minute
        return a.tier("default", "smart", SMART) == Tier.T0;
      })).as("A, which set the force, is back to auto: %s", feature(a, "default")).isTrue();
      assertThat(a.tier("default")).isEqualTo(Tier.T0);
      assertThat(feature(a, "default").get("forced_remaining_ms").asLong()).isZero();
      assertThat(b.tier("default", "smart", SMART)).isEqualTo(Tier.T0);
    }
  }

  @Test
  void aForceReplacedOnAnotherReplicaIsServedByTheReplicaThatSetTheFirst() throws Exception {
    try (TierBoard a = board(); TierBoard b = board()) {
      a.force("default", Tier.T2, Duration.ofMinutes(1));
      b.force("default", Tier.T3, Duration.ofMinutes(1));

      assertThat(RedisFixture.eventually(Duration.ofSeconds(2), () -> {
        clock.advance(Duration.ofMillis(60));
        return a.tier("default", "smart", SMART) == Tier.T3;
      })).as("the last force wins on A too").isTrue();
    }
  }
}
