package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.chain.RetryBudgets;
import dev.levee.core.chain.Target;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 9 newcomer trial): the retry budget was one bucket per gateway, so one
 * tenant's 400 requests to failing models drained {@code /health}'s {@code retry_budget} from 498 to
 * 0 within seconds, and another tenant's request to a healthy target that failed once ({@code
 * emu-500-once}) got {@code 500 api_error} with {@code x-levee-attempts: 1}: no retry. Now each
 * configured target has its own bucket and models clients name themselves share one overflow
 * bucket (a feature's reduced target counts as configured); one gateway, kept for the whole story,
 * in front of the emulator.
 */
@Tag("regression")
class OneTargetDrainsOnlyItsOwnRetryBudgetRegressionTest {

  private static final String CONFIG = """
      models:
        sick: { chain: [emu/emu-529] }
        steady: { chain: [emu/emu-500-once] }
      policy:
        deadline: 10s
        attempt-timeout: 5s
        min-attempt-time: 10ms
        retry: { max-retries: 3, base-delay: 1ms, max-delay: 2ms }
        breaker: off
        retry-budget: { max: 20, ratio: 0.25 }
      tiers: { evaluate-every: 1h } # a slow run must not step the feature down mid-story
      """; // breaker off: the failing targets keep being called (and retried) until their budgets say no

  private static final Map<String, String> TENANT_A = Map.of("x-api-key", "tenant-a", "content-type", "application/json");
  private static final Map<String, String> TENANT_B = Map.of("x-api-key", "tenant-b", "content-type", "application/json");

  @Test
  void aHealthyTargetsSingleFailureIsRetriedAfterAnotherTargetDrainedItsBudget() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      for (int i = 0; i < 10; i++) { // 3 retries wanted each: 30 per bucket, 20 tokens
        assertThat(send(h, TENANT_A, "sick", "storm " + i).statusCode()).isEqualTo(529);
        assertThat(send(h, TENANT_A, "emu-503", "storm " + i).statusCode()).isEqualTo(503); // no alias: overflow
      }
      JsonNode drained = health(h);
      assertThat(drained.path("targets").path("emu/emu-529").path("retry_budget").path("tokens").asDouble())
          .as("the failing configured target's own bucket").isLessThan(1);
      assertThat(drained.path("targets").path("emu/emu-529").path("retry_budget").path("denied_here").asLong()).isPositive();
      assertThat(drained.path("targets").path("emu/emu-503").path("retry_budget").path("bucket").asText())
          .isEqualTo("overflow");
      assertThat(drained.path("retry_budget").path("overflow").path("tokens").asDouble())
          .as("the overflow bucket of client-named models").isLessThan(1);
      assertThat(drained.path("retry_budget").path("drained_buckets")).extracting(JsonNode::asText)
          .containsExactly("emu/emu-529", "overflow");
      assertThat(drained.path("targets").path("emu/emu-500-once").path("retry_budget").path("tokens").asDouble())
          .as("the healthy target's bucket is untouched").isEqualTo(20.0);

      HttpResponse<String> answer = send(h, TENANT_B, "steady", "a healthy question");

      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      assertThat(answer.headers().firstValue("x-levee-attempts")).hasValue("2");
      assertThat(health(h).path("targets").path("emu/emu-500-once").path("retry_budget").path("tokens").asDouble())
          .as("one token spent on the retry (and a quarter earned back by the answer)").isBetween(19.0, 19.25);
      assertThat(h.get("/metrics").body())
          .contains("levee_retry_budget_tokens{target=\"emu/emu-500-once\"}")
          .contains("levee_retry_budget_tokens{target=\"overflow\"}")
          .containsPattern("levee_retry_budget_denied_total\\{target=\"emu/emu-529\"} [1-9]");
    }
  }

  @Test
  void aFeaturesReducedTargetHasABucketOfItsOwnNotTheOverflowOne() throws Exception {
    try (Harness h = Harness.start(CONFIG + """
        features:
          chat: { reduced: { target: emu/claude-reduced } }
        """)) {
      RetryBudgets budgets = h.gateway.chain().budgets();

      assertThat(budgets.hasOwn(Target.parse("emu/claude-reduced"))).isTrue();
      assertThat(budgets.hasOwn(Target.parse("emu/emu-529"))).isTrue();
      assertThat(budgets.hasOwn(Target.parse("emu/emu-503"))).isFalse();
      assertThat(budgets.configured()).hasSize(3);
    }
  }

  /**
   * Regression (second newcomer trial, session 9): with {@code [emu-529, emu-ok]} and the primary's
   * circuit never opening, each request's fallback cost emu-ok a token and its answer earned 0.25
   * back; after ~27 requests emu-ok's bucket refused the fallback ("not tried: retry budget
   * exhausted") though it answered every call. A fallback is now emu-ok's first call: free.
   */
  @Test
  void aPrimaryThatAlwaysFailsNeverDrainsItsHealthyFallbacksBudget() throws Exception {
    try (Harness h = Harness.start("""
        models:
          pair: { chain: [emu/emu-529, emu/emu-ok] }
        policy:
          deadline: 10s
          min-attempt-time: 10ms
          retry: { max-retries: 1, base-delay: 1ms, max-delay: 2ms }
          breaker: off
          retry-budget: { max: 20, ratio: 0.25 }
        tiers: { evaluate-every: 1h } # on a loaded box 40 requests outlast 5 s: T1 then skipped the failing primary
        """)) {
      for (int i = 0; i < 40; i++) {
        HttpResponse<String> answer = send(h, TENANT_A, "pair", "question " + i);

        assertThat(answer.statusCode()).as("request %d: %s", i, answer.body()).isEqualTo(200);
        assertThat(answer.headers().firstValue("x-levee-fallback")).hasValue("true");
      }
      JsonNode health = health(h);
      assertThat(health.path("targets").path("emu/emu-ok").path("retry_budget").path("tokens").asDouble()).isEqualTo(20.0);
      assertThat(health.path("targets").path("emu/emu-ok").path("retry_budget").path("denied_here").asLong()).isZero();
      assertThat(health.path("targets").path("emu/emu-529").path("retry_budget").path("tokens").asDouble())
          .as("the primary's retries spent its own bucket").isLessThan(1);
    }
  }

  private static HttpResponse<String> send(Harness h, Map<String, String> tenant, String model, String prompt)
      throws Exception {
    return h.post("/v1/messages", "{\"model\":" + Json.string(model) + ",\"max_tokens\":16,\"messages\":"
        + "[{\"role\":\"user\",\"content\":" + Json.string(prompt) + "}]}", tenant);
  }

  private static JsonNode health(Harness h) throws Exception {
    return Json.tryParse(h.get("/health").body());
  }
}
