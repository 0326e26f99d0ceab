package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 10), two findings about the overflow bucket every model a client names
 * itself draws on. (1) Each such target's {@code /health} entry repeated the overflow bucket's
 * {@code tokens} and {@code denied} as if they were its own, so two client-named models with one
 * refusal between them showed two; now they say {@code bucket: overflow} only and the summary shows
 * the overflow's figures once. (2) {@code /health} called the bucket {@code overflow} and the
 * metrics {@code target="other"}; both now say {@code overflow}.
 */
@Tag("regression")
class OverflowBucketShownOnceRegressionTest {

  private static final Map<String, String> HEADERS = Map.of("x-api-key", "tenant-a", "content-type", "application/json");

  @Test
  void clientNamedTargetsPointAtTheOverflowBucketWhoseFiguresAreShownOnce() throws Exception {
    try (Harness h = Harness.start("""
        models:
          steady: { chain: [emu/emu-ok] }
        policy:
          deadline: 10s
          min-attempt-time: 10ms
          retry: { max-retries: 1, base-delay: 1ms, max-delay: 2ms }
          breaker: off
          retry-budget: { max: 1, ratio: 0 }
        """)) {
      send(h, "emu-503", "spends the overflow bucket's one token");
      send(h, "emu-529", "its retry is refused"); // one refusal between the two models

      JsonNode health = Json.tryParse(h.get("/health").body());

      for (String target : new String[] {"emu/emu-503", "emu/emu-529"}) {
        JsonNode budget = health.path("targets").path(target).path("retry_budget");
        assertThat(budget.path("bucket").asText()).isEqualTo("overflow");
        assertThat(budget.size()).as("%s: no figures of its own: %s", target, budget).isEqualTo(1);
      }
      JsonNode overflow = health.path("retry_budget").path("overflow");
      assertThat(overflow.path("tokens").asDouble()).isZero();
      assertThat(overflow.path("denied_here").asLong()).isEqualTo(1);
      assertThat(health.path("targets").path("emu/emu-ok").path("retry_budget").path("bucket").asText()).isEqualTo("own");
    }
  }

  @Test
  void theOverflowBucketHasOneNameInHealthAndMetrics() throws Exception {
    try (Harness h = Harness.start("""
        models:
          steady: { chain: [emu/emu-ok] }
        """)) {
      send(h, "claude-not-an-alias", "hello");

      assertThat(Json.tryParse(h.get("/health").body()).path("targets").path("emu/claude-not-an-alias")
          .path("retry_budget").path("bucket").asText()).isEqualTo("overflow");
      assertThat(h.get("/metrics").body())
          .contains("levee_retry_budget_tokens{target=\"overflow\"}")
          .contains("levee_retry_budget_max_tokens{target=\"overflow\"}")
          .contains("levee_retry_budget_denied_total{target=\"overflow\"}")
          .doesNotContain("levee_retry_budget_tokens{target=\"other\"}");
    }
  }

  private static HttpResponse<String> send(Harness h, String model, String prompt) throws Exception {
    return h.post("/v1/messages", "{\"model\":" + Json.string(model) + ",\"max_tokens\":16,\"messages\":"
        + "[{\"role\":\"user\",\"content\":" + Json.string(prompt) + "}]}", HEADERS);
  }
}
