package dev.levee.gateway.cluster;

import static dev.levee.gateway.tier.TestBoards.OVERLOADED;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.tier.TierBoard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Regression (two replicas, one Redis): a replica taking over a feature's tier lease adopted the
 * published tiers of the configured aliases only. A model name a client chose, whose scope the dead
 * holder had stepped down to T2 and published, was not adopted by a new holder that never served
 * it: nobody evaluated it, and the new holder served it at T0 (as did every replica, once its key's
 * TTL ran out) with no step up and no transition logged.
 *
 * <p>Now the new holder learns the names from Redis and adopts them as it does configured aliases,
 * making their scopes through the bound the request path uses, so a flood of names in Redis makes
 * at most {@value TierBoard#MAX_CLIENT_SCOPES} scopes. A crash is the lease key deleted; evaluations
 * are driven by hand on a {@link ManualClock}.
 */
class ClientNamedTierAdoptedOnTakeoverRegressionTest {

  private static final String YAML = """
      upstreams:
        anthropic: { url: "https://api.anthropic.com" }
      models:
        fast: { chain: [anthropic/claude-small] }
      """;
  private static final Target SMALL = Target.parse("anthropic/claude-small");
  private static final Target NAMED = Target.parse("anthropic/my-model");

  @AutoClose
  private final RedisFixture redis = new RedisFixture();
  private final ManualClock clock = new ManualClock();

  @Test
  void theNewHolderAdoptsAClientNamedTierItNeverServedAndStepsItUpByTheRules() throws Exception {
    try (TierBoard a = redis.board(YAML, clock); TierBoard b = redis.board(YAML, clock)) {
      for (int i = 0; i < 30; i++) { // a's clients of my-model fail: a steps it down and publishes T2
        a.tier("default", "my-model", List.of(NAMED));
        a.onFailure(NAMED, OVERLOADED, Duration.ofMillis(30));
        a.failed("default", "my-model", Duration.ofMillis(70));
        clock.advance(Duration.ofMillis(100));
      }
      a.evaluateAll();
      assertThat(redis.get("tier:{default/my-model}")).isEqualTo("T2");
      redis.delete("tier-lease:{default}"); // a is killed: its lease runs out

      b.tier("default", "fast", List.of(SMALL)); // b served the feature, never my-model
      b.evaluateAll(); // b takes the lease
      assertThat(b.otherModelsTier("default")).as("b adopted the published tier of my-model").isEqualTo(Tier.T2);
      JsonNode listed = b.status().get(0);
      assertThat(listed.path("other_models").path("below_t0").asInt()).isEqualTo(1);
      assertThat(listed.path("aliases").findValuesAsText("alias")).contains("my-model");
      assertThat(redis.get("tier:{default/my-model}")).isEqualTo("T2");

      List<String> published = new ArrayList<>();
      for (int i = 0; i < 30; i++) { // no traffic: quiet windows, one step per healthy-for (30 s)
        clock.advance(Duration.ofSeconds(5));
        b.evaluateAll();
        String now = String.valueOf(redis.get("tier:{default/my-model}"));
        if (published.isEmpty() || !published.getLast().equals(now)) {
          published.add(now);
        }
      }
      assertThat(published).as("b evaluates my-model from T2, one logged step at a time")
          .containsExactly("T2", "T1", "null");
      assertThat(b.transitions()).isEqualTo(2);
    }
  }

  @Test
  void aFloodOfNamesInRedisMakesNoMoreClientScopesThanTheBound() throws Exception {
    try (TierBoard b = redis.board(YAML, clock)) {
      Map<String, String> junk = new HashMap<>();
      for (int i = 0; i < 3 * TierBoard.MAX_CLIENT_SCOPES; i++) {
        junk.put("tier:{default/junk-" + i + "}", "T3");
      }
      redis.set(junk, 60_000);
      b.tier("default", "fast", List.of(SMALL));
      b.evaluateAll(); // b takes the free lease

      JsonNode otherModels = b.status().get(0).path("other_models");
      assertThat(otherModels.path("scopes").asInt()).as("adopted only up to the bound")
          .isEqualTo(TierBoard.MAX_CLIENT_SCOPES);
      assertThat(otherModels.path("below_t0").asInt()).isEqualTo(TierBoard.MAX_CLIENT_SCOPES);
      assertThat(b.otherModelsTier("default")).isEqualTo(Tier.T3);

      // a new name a client sends now shares the feature's scope, as past the bound at any time
      assertThat(b.tier("default", "another-model", List.of(Target.parse("anthropic/another-model"))))
          .isEqualTo(Tier.T0);
      assertThat(b.status().get(0).path("other_models").path("scopes").asInt())
          .isEqualTo(TierBoard.MAX_CLIENT_SCOPES + 1); // its own 32, and the shared one
    }
  }
}
