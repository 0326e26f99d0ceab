package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): every answer of the gateway carried its request id in {@code
 * x-levee-request-id} but those of {@code /health}, {@code /health/live}, {@code /health/ready}
 * and {@code /metrics}, so a probe's answer could not be told apart from the next one in a report.
 * They now carry one too, each its own, as {@code /admin/*} answers do.
 */
class HealthAnswersNamedRegressionTest {

  private static final String CONFIG = "models:\n  chat: { chain: [emu/emu-ok] }\n" + Harness.BASE_POLICY;

  @Test
  void everyControlLaneAnswerCarriesItsOwnRequestId() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      Set<String> ids = new HashSet<>();
      for (String path : new String[] {"/health", "/health/live", "/health/ready", "/metrics"}) {
        HttpResponse<String> answer = h.get(path);

        assertThat(answer.statusCode()).as(path).isEqualTo(200);
        assertThat(answer.headers().firstValue("x-levee-request-id")).as(path).hasValueSatisfying(id ->
            assertThat(id).startsWith("lv_"));
        ids.add(answer.headers().firstValue("x-levee-request-id").orElseThrow());
      }
      assertThat(ids).as("one id per answer").hasSize(4);
    }
  }
}
