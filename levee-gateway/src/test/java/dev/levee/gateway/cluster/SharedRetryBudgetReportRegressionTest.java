package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.gateway.Gateway;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Regression (session 8 newcomer trial): with {@code cluster:} sharing the retry budget, {@code
 * /health}'s {@code retry_budget.remaining} (now each target's {@code retry_budget.tokens}) and {@code levee_retry_budget_tokens} showed each
 * replica's own bucket, so a replica that had retried nothing reported a full budget while the
 * cluster's shared one (the one its retries draw on) was being spent. Both now read the shared
 * bucket, and {@code levee_retry_budget_denied} counts this replica's refusals by the shared bucket (session 9: one
 * bucket per configured target, so the labels and fields name the target). Two gateways
 * on the real Redis at 127.0.0.1:6379.
 */
class SharedRetryBudgetReportRegressionTest {

  @RegisterExtension
  final ReplicasOnRedis redis = new ReplicasOnRedis();
  private Replicas cluster;

  @Test
  void everyReplicaReportsTheSharedBucket() throws Exception {
    cluster = redis.start(2, """
        models:
          sick: { chain: [emu/emu-529] }
        policy:
          retry: { max-retries: 3, base-delay: 1ms, max-delay: 2ms }
          breaker: { failures: 1000, window: 60s }
          retry-budget: { max: 5, ratio: 0 }
        """);
    Gateway spender = cluster.get(0);
    Gateway idle = cluster.get(1);

    for (int i = 0; i < 3; i++) { // 3 retries each, until the 5 tokens are gone
      cluster.send(spender, i, "sick", Map.of());
    }

    assertThat(tokens(spender)).as("the spender's report").isLessThan(1);
    assertThat(tokens(idle)).as("the idle replica's report: the same shared bucket").isLessThan(1);
    assertThat(cluster.get(spender, "/metrics").body()).as("the shared bucket's refusals")
        .containsPattern("levee_retry_budget_denied_total\\{target=\"emu/emu-529\"} [1-9]");
  }

  private double tokens(Gateway replica) throws Exception {
    JsonNode health = Json.tryParse(cluster.get(replica, "/health").body());
    return health.path("targets").path("emu/emu-529").path("retry_budget").path("tokens").asDouble(Double.NaN);
  }
}
