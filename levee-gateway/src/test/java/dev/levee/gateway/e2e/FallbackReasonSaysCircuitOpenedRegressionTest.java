package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12 review): when the first target's failure opened its circuit and the
 * fallback answered, {@code x-levee-reason} said {@code "emu/emu-529: 529 overloaded_error (1 call);
 * emu/claude-ok: answered"}, hiding why the first target was not retried (and why the next requests
 * skip it), while the same failure without an answer said {@code "(1 call, then its circuit opened:
 * 30 s left)"}. The answer's reason now says so too, with or without retries left.
 */
class FallbackReasonSaysCircuitOpenedRegressionTest {

  private static final String BODY = "{\"model\":\"chat\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  private static String config(int maxRetries) {
    return """
        models:
          chat:
            chain: [emu/emu-529, emu/claude-ok]
        policy:
          deadline: 10s
          attempt-timeout: 5s
          retry: { max-retries: %d, base-delay: 10ms, max-delay: 50ms }
          breaker: { failures: 1, window: 30s, open-for: 30s }
        """.formatted(maxRetries);
  }

  @Test
  void aFallbacksReasonSaysTheFirstTargetsCircuitOpened() throws Exception {
    for (int maxRetries : new int[] {2, 0}) {
      try (Harness h = Harness.start(config(maxRetries))) {
        HttpResponse<String> answer = h.post("/v1/messages", BODY,
            Map.of("x-api-key", "sk-ant-test", "anthropic-version", "2023-06-01"));

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.headers().firstValue("x-levee-reason")).as("max-retries %d", maxRetries)
            .hasValue("emu/emu-529: 529 overloaded_error (1 call, then its circuit opened: 30 s left); emu/claude-ok: answered");
      }
    }
  }
}
