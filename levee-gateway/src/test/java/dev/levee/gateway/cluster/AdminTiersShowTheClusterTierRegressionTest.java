package dev.levee.gateway.cluster;

import static dev.levee.gateway.tier.TestBoards.OVERLOADED;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.core.chain.Target;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.tier.TestBoards;
import dev.levee.gateway.tier.TierBoard;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Regression (two replicas, one Redis): {@code GET /admin/tiers} ({@link TierBoard#status()}, its
 * {@code features}) on the replica that does not hold the feature's tier lease showed what that
 * replica's own scopes held, not the tiers the cluster ran: a configured alias it had not served was
 * missing (the feature at T0 while every replica served the alias at T2), a client-chosen name at a
 * published T2 was neither listed nor counted below T0, and nothing said which replica decides.
 *
 * <p>Now every replica lists the tiers in force on it — the published ones when another holds the
 * lease — and {@code tier_lease} says whether it holds the lease ({@code held}), another replica
 * does ({@code elsewhere}), or it decides alone ({@code alone}: no cluster). Evaluations are driven
 * by hand on a {@link ManualClock}.
 */
class AdminTiersShowTheClusterTierRegressionTest {

  private static final String YAML = """
      upstreams:
        anthropic: { url: "https://api.anthropic.com" }
      models:
        smart: { chain: [anthropic/claude-sick, anthropic/claude-small] }
        fast: { chain: [anthropic/claude-small] }
      """;
  private static final Target SICK = Target.parse("anthropic/claude-sick");
  private static final Target SMALL = Target.parse("anthropic/claude-small");
  private static final Target NAMED = Target.parse("anthropic/my-model");
  private static final List<Target> SMART = List.of(SICK, SMALL);

  @AutoClose
  private final RedisFixture redis = new RedisFixture();
  private final ManualClock clock = new ManualClock();

  private static JsonNode row(JsonNode feature, String alias) {
    for (JsonNode a : feature.path("aliases")) {
      if (a.path("alias").asText().equals(alias)) {
        return a;
      }
    }
    throw new AssertionError("no row of alias " + alias + " in " + feature);
  }

  @Test
  void theReplicaNotHoldingTheLeaseListsThePublishedTiersAndSaysItDoesNotHoldIt() throws Exception {
    try (TierBoard a = redis.board(YAML, clock); TierBoard b = redis.board(YAML, clock)) {
      a.tier("default", "fast", List.of(SMALL));
      a.evaluateAll(); // a holds default's lease
      b.tier("default", "fast", List.of(SMALL)); // b serves fast, and my-model once; never smart
      b.tier("default", "my-model", List.of(NAMED));
      for (int i = 0; i < 30; i++) { // a's clients of smart and my-model fail: a publishes T2 for both
        a.tier("default", "smart", SMART);
        a.tier("default", "my-model", List.of(NAMED));
        a.onFailure(SICK, OVERLOADED, Duration.ofMillis(30));
        a.onFailure(SMALL, OVERLOADED, Duration.ofMillis(30));
        a.onFailure(NAMED, OVERLOADED, Duration.ofMillis(30));
        a.failed("default", "smart", Duration.ofMillis(70));
        a.failed("default", "my-model", Duration.ofMillis(70));
        clock.advance(Duration.ofMillis(100));
      }
      a.evaluateAll();
      b.evaluateAll(); // the lease is a's: b evaluates nothing
      assertThat(redis.get("tier:{default/smart}")).isEqualTo("T2");
      assertThat(redis.get("tier:{default/my-model}")).isEqualTo("T2");
      assertThat(RedisFixture.eventually(Duration.ofSeconds(2), () -> {
        clock.advance(Duration.ofMillis(60)); // past the view TTL (virtual time)
        return b.otherModelsTier("default").name().equals("T2");
      })).isTrue();

      JsonNode onB = b.status().get(0);
      assertThat(onB.path("tier").asText()).as("the tier the cluster runs: " + onB).isEqualTo("T2");
      assertThat(onB.path("automatic").asText()).isEqualTo("T2");
      assertThat(row(onB, "smart").path("tier").asText()).as("an alias b never served").isEqualTo("T2");
      assertThat(row(onB, "smart").path("automatic").asText()).isEqualTo("T2");
      assertThat(row(onB, "my-model").path("tier").asText()).as("a client-chosen name").isEqualTo("T2");
      assertThat(onB.path("other_models").path("below_t0").asInt()).isEqualTo(1);
      assertThat(onB.path("other_models").path("tier").asText()).isEqualTo("T2");
      assertThat(onB.path("tier_lease").asText()).isEqualTo("elsewhere");

      JsonNode onA = a.status().get(0);
      assertThat(onA.path("tier_lease").asText()).isEqualTo("held");
      assertThat(onA.path("tier").asText()).isEqualTo("T2");
      assertThat(row(onA, "smart").path("last_reason").asText()).as("the holder's own decision").contains("T2");
      assertThat(row(onB, "fast").path("tier").asText()).as("fast reads claude-small's failures: stepped down on a")
          .isEqualTo(row(onA, "fast").path("tier").asText()).isNotEqualTo("T0");
      for (String field : List.of("tier", "automatic", "forced", "healthy_for_ms", "targets")) {
        assertThat(row(onB, "smart").has(field)).as("row field %s, as on the holder", field).isTrue();
      }
    }
  }

  @Test
  void aGatewayWithoutAClusterDecidesAlone() throws Exception {
    try (TierBoard alone = TestBoards.board(YAML, clock)) {
      alone.tier("default", "fast", List.of(SMALL));
      alone.evaluateAll();
      assertThat(alone.status().get(0).path("tier_lease").asText()).isEqualTo("alone");
    }
  }
}
