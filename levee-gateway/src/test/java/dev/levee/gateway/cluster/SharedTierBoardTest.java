package dev.levee.gateway.cluster;

import static dev.levee.gateway.tier.TestBoards.OVERLOADED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.tier.TierBoard;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Two replicas' tier boards sharing decisions (issue 14): one evaluator per feature under the
 * lease, its decision served by both, the transition posted once; a force on one holds on both.
 */
class SharedTierBoardTest {

  private static final Target SICK = Target.parse("anthropic/claude-sick");
  private static final Target SMALL = Target.parse("anthropic/claude-small");
  private static final List<Target> SMART = List.of(SICK, SMALL);

  @AutoClose
  private final RedisFixture redis = new RedisFixture();
  private final ManualClock clock = new ManualClock();

  private TierBoard board() throws Exception {
    return redis.board("""
        upstreams:
          anthropic: { url: "https://api.anthropic.com" }
        models:
          smart: { chain: [anthropic/claude-sick, anthropic/claude-small] }
        """, clock);
  }

  private void sickTraffic(TierBoard board, int n) {
    for (int i = 0; i < n; i++) {
      board.tier("default", "smart", SMART);
      board.onFailure(SICK, OVERLOADED, Duration.ofMillis(30));
      board.onSuccess(SMALL, Duration.ofMillis(40));
      board.answered("default", "smart", Duration.ofMillis(70));
      clock.advance(Duration.ofMillis(100));
    }
  }

  @Test
  void oneReplicaEvaluatesBothServeItsTierAndTheTransitionIsPostedOnce() throws Exception {
    try (TierBoard a = board(); TierBoard b = board()) {
      sickTraffic(a, 30);
      sickTraffic(b, 30);

      a.evaluateAll(); // a takes the feature's lease
      b.evaluateAll(); // b does not hold it: its scopes are not evaluated

      assertThat(a.tier("default", "smart", SMART)).isEqualTo(Tier.T1);
      assertThat(RedisFixture.eventually(Duration.ofSeconds(2), () -> {
        clock.advance(Duration.ofMillis(60)); // past the view TTL (virtual time)
        return b.tier("default", "smart", SMART) == Tier.T1;
      })).isTrue();
      assertThat(a.transitions()).isEqualTo(1);
      assertThat(b.transitions()).as("posted by the evaluator only").isZero();
    }
  }

  @Test
  void aForceOnOneReplicaHoldsOnTheOther() throws Exception {
    try (TierBoard a = board(); TierBoard b = board()) {
      sickTraffic(a, 1);
      sickTraffic(b, 1);

      b.force("default", Tier.T2, Duration.ofMinutes(10));

      assertThat(RedisFixture.eventually(Duration.ofSeconds(2), () -> a.tier("default", "smart", SMART) == Tier.T2))
          .isTrue();
      assertThat(a.tier("default")).isEqualTo(Tier.T2);
      b.clearForce("default");
      assertThat(RedisFixture.eventually(Duration.ofSeconds(2), () -> a.tier("default", "smart", SMART) == Tier.T0))
          .isTrue();
    }
  }
}
