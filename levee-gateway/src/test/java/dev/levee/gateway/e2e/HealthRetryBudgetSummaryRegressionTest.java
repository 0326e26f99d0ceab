package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 10): {@code /health}'s gateway-wide {@code retry_budget.remaining} was the
 * minimum over every bucket, the overflow bucket and dead targets included, so one target that
 * always fails pinned it at 0 for good and the figure said nothing about the others. The summary
 * now counts the drained buckets out of all, names them, and shows the lowest of the others (the
 * next to run dry). One gateway in front of the emulator: {@code emu-529} always fails (breaker off,
 * so its retries drain its 20 tokens), {@code emu-ok} answers, and a client-named model spends
 * part of the overflow bucket.
 */
@Tag("regression")
class HealthRetryBudgetSummaryRegressionTest {

  private static final Map<String, String> HEADERS = Map.of("x-api-key", "tenant-a", "content-type", "application/json");

  @Test
  void oneDeadTargetIsCountedAndNamedAndTheOthersStillShow() throws Exception {
    try (Harness h = Harness.start("""
        models:
          sick: { chain: [emu/emu-529] }
          steady: { chain: [emu/emu-ok] }
        policy:
          deadline: 10s
          min-attempt-time: 10ms
          retry: { max-retries: 3, base-delay: 1ms, max-delay: 2ms }
          breaker: off
          retry-budget: { max: 20, ratio: 0 }
        tiers: { evaluate-every: 1h } # the feature stays at T0 however slow the run
        """)) {
      for (int i = 0; i < 10; i++) { // 3 retries wanted each: 30 for 20 tokens
        send(h, "sick", "storm " + i);
      }
      assertThat(send(h, "steady", "a healthy question").statusCode()).isEqualTo(200);
      send(h, "emu-503", "a model the client named"); // 3 retries: the overflow bucket keeps 17

      JsonNode summary = Json.tryParse(h.get("/health").body()).path("retry_budget");

      assertThat(summary.has("remaining")).as("no minimum pinned at 0 by the dead target").isFalse();
      assertThat(summary.path("buckets").asInt()).isEqualTo(3);
      assertThat(summary.path("drained").asInt()).isEqualTo(1);
      assertThat(summary.path("drained_buckets")).extracting(JsonNode::asText).containsExactly("emu/emu-529");
      assertThat(summary.path("lowest_undrained").path("bucket").asText()).isEqualTo("overflow");
      assertThat(summary.path("lowest_undrained").path("tokens").asDouble()).isEqualTo(17.0);
      assertThat(summary.path("max").asDouble()).isEqualTo(20.0);
      assertThat(summary.path("denied_here").asLong()).as("emu-529's refused retries: 6 requests retried 3 times, "
          + "the 7th twice, then one refusal each for the 7th to the 10th").isEqualTo(4);
      assertThat(summary.path("tokens_from").asText()).as("no cluster: this replica's buckets").isEqualTo("replica");
    }
  }

  private static HttpResponse<String> send(Harness h, String model, String prompt) throws Exception {
    return h.post("/v1/messages", "{\"model\":" + Json.string(model) + ",\"max_tokens\":16,\"messages\":"
        + "[{\"role\":\"user\",\"content\":" + Json.string(prompt) + "}]}", HEADERS);
  }
}
