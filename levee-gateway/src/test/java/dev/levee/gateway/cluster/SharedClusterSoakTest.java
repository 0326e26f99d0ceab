package dev.levee.gateway.cluster;

import static dev.levee.gateway.cluster.ClusterBreakersBoundedRegressionTest.evictions;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.Scenario;
import dev.levee.gateway.Gateway;
import dev.levee.gateway.GatewayClock;
import dev.levee.gateway.tier.TierBoard;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The cluster variant of {@code SharedGatewaySoakTest}: two replicas sharing one Redis and one
 * virtual clock serve configured aliases and four tenants who invent model names round after round
 * (healthy ones, ones answered 529, ones answered 429 with a long {@code retry-after}), as a
 * process shared for weeks sees. While the names are in use every per-name table is bounded; an
 * hour after each round nothing of its names is left, on either replica or in Redis, however many
 * rounds came before: the breakers (and the shared breakers made with them), the tier scopes and
 * decided tiers, the cooldowns. Configured aliases never notice.
 */
class SharedClusterSoakTest {

  private static final String CONFIG = """
      models:
        healthy: { chain: [emu/emu-ok] }
        absorbed: { chain: [emu/emu-529, emu/claude-haiku-4-5] }
      tiers:
        evaluate-every: 30s
        min-volume: 2
      policy:
        retry: { max-retries: 0 }
        breaker: { failures: 3, window: 60s, open-for: 30s }
        retry-budget: { max: 100, ratio: 0.5 }
      """;
  private static final int ROUNDS = 3;
  private static final int TENANTS = 4;
  private static final int NAMES_PER_TENANT = 15;
  private static final int CONFIGURED_TARGETS = 3;

  private final RedisFixture redis = new RedisFixture();

  @AfterEach
  void cleanUp() {
    redis.close();
  }

  @Test
  void roundsOfInventedNamesLeaveNothingBehindOnAnyReplicaOrInRedis() throws Exception {
    ManualClock clock = new ManualClock();
    GatewayClock virtual = new GatewayClock(clock, clock, InstantSource.system(), new SplittableRandom(7), clock);
    EmulatorOptions options = EmulatorOptions.builder().timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO)
        .scenario(Scenario.builder()
            .phase(Scenario.Phase.builder().model("claude-z*").status(529).build())
            .phase(Scenario.Phase.builder().model("claude-r*").status(429).retryAfter(Duration.ofMinutes(15)).build())
            .build())
        .build();
    try (Replicas replicas = new Replicas(2, CONFIG, RedisFixture.REDIS, redis.config.name(), options, virtual)) {
      int n = 0;
      int names = TENANTS * NAMES_PER_TENANT;
      for (int round = 0; round < ROUNDS; round++) {
        for (int tenant = 0; tenant < TENANTS; tenant++) {
          Map<String, String> key = Map.of("x-api-key", "sk-tenant-" + tenant);
          for (int i = 0; i < NAMES_PER_TENANT; i++) {
            String model = List.of("claude-ok", "claude-z", "claude-r").get(i % 3) + "-" + round + "-" + tenant + "-" + i;
            for (int again = 0; again < 2; again++) {
              HttpResponse<String> answer = replicas.send(n++, model, key);
              assertThat(answer.statusCode()).as("%s: %s", model, answer.body())
                  .isEqualTo(model.startsWith("claude-ok") ? 200 : model.startsWith("claude-z") ? 529 : 429);
            }
          }
          assertThat(replicas.send(n++, "healthy", key).statusCode()).isEqualTo(200);
          assertThat(replicas.send(n++, "absorbed", key).statusCode()).isEqualTo(200);
        }
        clock.advance(Duration.ofSeconds(30)); // an evaluation

        for (Gateway g : replicas.gateways) { // in use: bounded by this round's names
          Cluster cluster = g.cluster().orElseThrow();
          assertThat(g.chain().breakers().circuits()).hasSizeLessThanOrEqualTo(CONFIGURED_TARGETS + names);
          assertThat(cluster.namedBreakers()).isZero();
          assertThat(cluster.cooldowns().localCount()).isLessThanOrEqualTo(names / 3);
          assertThat(cluster.tiers().decidedHeld()).isLessThanOrEqualTo(TierBoard.MAX_CLIENT_SCOPES + 1);
          assertThat(otherModels(replicas, g).path("scopes").asInt())
              .isLessThanOrEqualTo(TierBoard.MAX_CLIENT_SCOPES + 1);
          assertThat(g.tiers().currentTier("default", "healthy")).isEqualTo(Tier.T0);
        }
        List<String> decided = redis.keys("tier:{*");
        assertThat(decided).as("round %d: decided tiers in Redis", round)
            .hasSizeLessThanOrEqualTo(TierBoard.MAX_CLIENT_SCOPES + 1 + 2)
            .allSatisfy(k -> assertThat(redis.pttl(k)).as(k).isPositive());

        for (int minute = 0; minute < 64; minute++) {
          clock.advance(Duration.ofMinutes(1)); // the round's names go quiet past every idle time
        }
        for (Gateway g : replicas.gateways) { // idle: nothing of the round's names is left
          assertThat(replicas.send(g, n++, "healthy", Map.of()).statusCode()).isEqualTo(200);
          Cluster cluster = g.cluster().orElseThrow();
          assertThat(g.chain().breakers().circuits().keySet()).extracting(Target::id).as("round %d", round)
              .allMatch(id -> !id.contains("claude-ok-") && !id.contains("claude-z-") && !id.contains("claude-r-"));
          assertThat(cluster.tiers().decidedHeld()).as("configured aliases at most").isLessThanOrEqualTo(2);
          assertThat(g.tiers().currentTier("default", "healthy")).isEqualTo(Tier.T0);
        }
        assertThat(redis.keys("tier:{*")).as("round %d: every invented name's scope back at T0, no key", round)
            .allMatch(k -> k.endsWith("/absorbed}")); // absorbed's step-up waits for a probe of its open primary
      }

      assertThat(sum(replicas, "breakers")).as("every invented name's breaker, on one replica or both")
          .isGreaterThanOrEqualTo(ROUNDS * names);
      assertThat(sum(replicas, "target_stats")).isGreaterThanOrEqualTo(ROUNDS * names);
      assertThat(sum(replicas, "tier_scopes")).as("client scopes dropped once idle, to make room for later rounds")
          .isPositive();
      for (Gateway g : replicas.gateways) { // the last round's cooldowns ended: the next one sweeps them
        assertThat(replicas.send(g, n++, "claude-r-last-" + g.port(), Map.of()).statusCode()).isEqualTo(429);
        assertThat(g.cluster().orElseThrow().cooldowns().localCount()).isEqualTo(1);
      }
    }
  }

  /** {@code levee_state_evictions_total{table}} summed over the replicas. */
  private static double sum(Replicas replicas, String table) throws Exception {
    double sum = 0;
    for (Gateway g : replicas.gateways) {
      sum += evictions(replicas.get(g, "/metrics").body(), table);
    }
    return sum;
  }

  private static JsonNode otherModels(Replicas replicas, Gateway g) throws Exception {
    JsonNode health = Json.MAPPER.readTree(replicas.get(g, "/health").body());
    for (JsonNode feature : health.path("tiers")) {
      if (feature.path("feature").asText().equals("default")) {
        return feature.path("other_models");
      }
    }
    throw new AssertionError("no default feature: " + health);
  }
}
