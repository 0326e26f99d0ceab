package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 4 leftover): an answer an idempotency key gave by itself — the first answer
 * replayed, or a 422 for the key with another body — never reached the pipeline, so it had no
 * access-log line and no count in {@code levee_requests_total}: a client could be answered with no
 * trace of it. Each is now written with the pipeline's own records ({@code replayed}, {@code
 * refused}; the answer's source {@code replay}).
 */
class IdempotencyKeyAnswersCountedRegressionTest {

  @Test
  void aReplayAndAMismatchAreCountedLikeEveryOtherAnswer() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), Harness.BASE_POLICY)) {
      HttpResponse<String> first = h.post("/v1/messages", body("one"), headers("order-7"));
      HttpResponse<String> again = h.post("/v1/messages", body("one"), headers("order-7"));
      HttpResponse<String> other = h.post("/v1/messages", body("two"), headers("order-7"));

      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(again.headers().firstValue("idempotent-replayed")).hasValue("true");
      assertThat(other.statusCode()).isEqualTo(422);
      assertThat(again.headers().firstValue("x-levee-request-id"))
          .isNotEqualTo(first.headers().firstValue("x-levee-request-id"));
      String ok = "levee_requests_total{endpoint=\"messages\",outcome=\"ok\",tier=\"T0\"} 1.0";
      String replayed = "levee_requests_total{endpoint=\"messages\",outcome=\"replayed\",tier=\"-\"} 1.0";
      String refused = "levee_requests_total{endpoint=\"messages\",outcome=\"refused\",tier=\"-\"} 1.0";
      String replayAnswer = "source=\"replay\"} 1.0";
      // each exchange is counted after its answer went out: the three counts may land in any order
      String metrics = h.awaitMetrics(ok, replayed, refused, replayAnswer);
      assertThat(metrics).contains(ok).contains(replayed).contains(refused)
          .containsPattern("levee_answers_total\\{feature=\"[^\"]*\",source=\"replay\"} 1.0");
    }
  }

  private static String body(String prompt) {
    return "{\"model\":\"emu-ok\",\"max_tokens\":32,\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
  }

  private static Map<String, String> headers(String idempotencyKey) {
    return Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01", "content-type", "application/json",
        "idempotency-key", idempotencyKey);
  }
}
