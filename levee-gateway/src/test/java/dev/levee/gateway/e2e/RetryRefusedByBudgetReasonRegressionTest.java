package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 10): when a target's own retry was skipped because its retry budget was
 * exhausted, {@code x-levee-reason} said only {@code "emu/emu-529: 529 overloaded_error (1 call)"},
 * so a client or operator could not tell a budget refusal from {@code max-retries: 0}; a fallback the
 * budget refused was already explained ({@code "not tried: retry budget exhausted"}). The retry
 * refusal is now worded the same way. One gateway in front of the emulator, with the primary's
 * 2-token bucket drained by the first requests' retries.
 */
@Tag("regression")
class RetryRefusedByBudgetReasonRegressionTest {

  private static final String MODEL = "sick";
  private static final String PAIR = "pair";
  private static final Map<String, String> HEADERS = Map.of("x-api-key", "tenant-a", "content-type", "application/json");

  @Test
  void aRetryTheTargetsBudgetRefusedIsNamedInTheReason() throws Exception {
    try (Harness h = Harness.start("""
        models:
          sick: { chain: [emu/emu-529] }
        policy:
          deadline: 10s
          min-attempt-time: 10ms
          retry: { max-retries: 1, base-delay: 1ms, max-delay: 2ms }
          breaker: off
          retry-budget: { max: 2, ratio: 0 }
        """)) {
      HttpResponse<String> funded = send(h, MODEL, "question 1");
      assertThat(funded.headers().firstValue("x-levee-reason")).as("a retry the budget paid for")
          .hasValue("emu/emu-529: 529 overloaded_error (2 calls)");
      send(h, MODEL, "question 2"); // spends the last token

      HttpResponse<String> refused = send(h, MODEL, "question 3");

      assertThat(refused.statusCode()).isEqualTo(529);
      assertThat(refused.headers().firstValue("x-levee-attempts")).hasValue("1");
      assertThat(refused.headers().firstValue("x-levee-reason"))
          .hasValue("emu/emu-529: 529 overloaded_error (1 call, then not retried: retry budget exhausted)");
      assertThat(Json.tryParse(refused.body()).path("error").path("message").asText())
          .contains("not retried: retry budget exhausted");
    }
  }

  @Test
  void aFallbackAfterARefusedRetryNamesHowBothTargetsEnded() throws Exception {
    try (Harness h = Harness.start("""
        models:
          pair: { chain: [emu/emu-529, emu/emu-503] }
        policy:
          deadline: 10s
          min-attempt-time: 10ms
          retry: { max-retries: 1, base-delay: 1ms, max-delay: 2ms }
          breaker: off
          retry-budget: { max: 1, ratio: 0 }
        """)) {
      send(h, PAIR, "question 1"); // one retry on each target: both buckets spent

      HttpResponse<String> refused = send(h, PAIR, "question 2");

      assertThat(refused.headers().firstValue("x-levee-attempts")).hasValue("2");
      assertThat(refused.headers().firstValue("x-levee-reason")).hasValue(
          "emu/emu-529: 529 overloaded_error (1 call, then not retried: retry budget exhausted); "
              + "emu/emu-503: 503 api_error (1 call, then not retried: retry budget exhausted)");
    }
  }

  private static HttpResponse<String> send(Harness h, String model, String prompt) throws Exception {
    return h.post("/v1/messages", "{\"model\":" + Json.string(model) + ",\"max_tokens\":16,\"messages\":"
        + "[{\"role\":\"user\",\"content\":" + Json.string(prompt) + "}]}", HEADERS);
  }
}
