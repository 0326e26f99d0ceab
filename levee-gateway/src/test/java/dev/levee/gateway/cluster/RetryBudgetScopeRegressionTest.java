package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.gateway.Gateway;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Regression (session 10): under {@code cluster:}, {@code /health}'s retry-budget {@code tokens}
 * are the cluster's shared bucket while {@code denied} counted only this replica's refusals, and
 * nothing said so: an idle replica showed an empty bucket with {@code denied: 0}. The report now
 * names the scope: {@code tokens_from: cluster} and {@code denied_here}. Two gateways on the real
 * Redis at 127.0.0.1:6379; only the first one retries.
 */
class RetryBudgetScopeRegressionTest {

  @RegisterExtension
  final ReplicasOnRedis redis = new ReplicasOnRedis();
  private Replicas cluster;

  @Test
  void tokensAreTheClustersAndRefusalsEachReplicasOwn() throws Exception {
    cluster = redis.start(2, """
        models:
          sick: { chain: [emu/emu-529] }
        policy:
          retry: { max-retries: 3, base-delay: 1ms, max-delay: 2ms }
          breaker: { failures: 1000, window: 60s }
          retry-budget: { max: 5, ratio: 0 }
        tiers: { evaluate-every: 1h }
        """);
    Gateway spender = cluster.get(0);
    Gateway idle = cluster.get(1);

    for (int i = 0; i < 3; i++) { // 3 retries wanted each: the 5 shared tokens are gone, then refusals
      cluster.send(spender, i, "sick", Map.of());
    }

    JsonNode spent = health(spender);
    JsonNode quiet = health(idle);
    for (JsonNode report : new JsonNode[] {spent, quiet}) {
      assertThat(report.path("retry_budget").path("tokens_from").asText()).isEqualTo("cluster");
      assertThat(target(report).path("tokens").asDouble(Double.NaN)).as("the shared bucket").isLessThan(1);
    }
    assertThat(target(spent).path("denied_here").asLong()).as("the spender's refusals").isPositive();
    assertThat(target(quiet).path("denied_here").asLong()).as("the idle replica was refused nothing").isZero();
    assertThat(target(quiet).has("denied")).as("no bare 'denied' that reads as the cluster's").isFalse();
  }

  private JsonNode health(Gateway replica) throws Exception {
    return Json.tryParse(cluster.get(replica, "/health").body());
  }

  private static JsonNode target(JsonNode report) {
    return report.path("targets").path("emu/emu-529").path("retry_budget");
  }
}
