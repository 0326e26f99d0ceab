package dev.levee.gateway.cluster;

import static dev.levee.gateway.tier.TestBoards.OVERLOADED;
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
 * Review of the replica tier reads (two replicas, one Redis): a scope's shared name was {@code
 * feature/alias} as it stands, so with features {@code a} and {@code a/b} configured,
 *
 * <ul>
 *   <li>the takeover {@code SCAN} for feature {@code a}'s keys ({@code tier:{a/*}}) also found those
 *       of feature {@code a/b}: a replica taking over {@code a} adopted {@code a/b}'s alias {@code
 *       fast} at T2 as a model name {@code b/fast} of feature {@code a};
 *   <li>feature {@code a}'s alias {@code b} read feature {@code a/b}'s force as its own: forcing
 *       {@code a/b} to T3 served {@code a}'s requests through {@code b} at T3.
 * </ul>
 *
 * Now the feature's part of a shared name escapes {@code /} and {@code %} ({@code a%2Fb}), so the
 * first {@code /} ends the feature. Evaluations are driven by hand on a {@link ManualClock}.
 */
class FeatureKeysKeepToTheirFeatureRegressionTest {

  private static final String YAML = """
      upstreams:
        anthropic: { url: "https://api.anthropic.com" }
      models:
        fast: { chain: [anthropic/claude-small] }
        b: { chain: [anthropic/claude-b] }
      features:
        a: { fail-mode: open }
        "a/b": { fail-mode: open }
      """;
  private static final Target SMALL = Target.parse("anthropic/claude-small");
  private static final Target B = Target.parse("anthropic/claude-b");

  @AutoClose
  private final RedisFixture redis = new RedisFixture();
  private final ManualClock clock = new ManualClock();

  @Test
  void takingOverFeatureADoesNotAdoptTheTiersOfFeatureASlashB() throws Exception {
    try (TierBoard x = redis.board(YAML, clock); TierBoard y = redis.board(YAML, clock)) {
      for (int i = 0; i < 30; i++) { // x's clients of a/b through fast fail: x publishes T2 for the pair
        x.tier("a/b", "fast", List.of(SMALL));
        x.onFailure(SMALL, OVERLOADED, Duration.ofMillis(30));
        x.failed("a/b", "fast", Duration.ofMillis(70));
        clock.advance(Duration.ofMillis(100));
      }
      x.evaluateAll();
      assertThat(x.tier("a/b", "fast", List.of(SMALL))).isEqualTo(Tier.T2);

      y.tier("a", "b", List.of(B)); // y serves feature a only
      y.evaluateAll(); // y takes a's lease: it adopts what Redis holds for a

      assertThat(y.otherModelsTier("a")).as("no model name b/fast of feature a").isEqualTo(Tier.T0);
      JsonNode a = y.status().get(0);
      assertThat(a.path("feature").asText()).isEqualTo("a");
      assertThat(a.path("aliases").findValuesAsText("alias")).containsExactly("b");
      assertThat(a.path("other_models").path("scopes").asInt()).isZero();
      assertThat(redis.get("tier:{a%2Fb/fast}")).as("a/b's key: its name escaped").isEqualTo("T2");
    }
  }

  @Test
  void forcingFeatureASlashBLeavesFeatureAsAliasBAlone() throws Exception {
    try (TierBoard x = redis.board(YAML, clock); TierBoard y = redis.board(YAML, clock)) {
      x.force("a/b", Tier.T3, Duration.ofMinutes(10));
      assertThat(y.tier("a/b", "fast", List.of(SMALL))).as("the force reaches every replica").isEqualTo(Tier.T3);
      assertThat(x.tier("a", "b", List.of(B))).isEqualTo(Tier.T0);
      assertThat(y.tier("a", "b", List.of(B))).isEqualTo(Tier.T0);
    }
  }
}
