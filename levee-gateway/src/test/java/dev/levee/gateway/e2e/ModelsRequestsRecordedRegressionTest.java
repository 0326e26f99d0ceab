package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial 2, session 10): {@code GET /v1/models} and {@code GET
 * /v1/models/{id}} — a configured alias's model object, or the upstream's answer relayed — left no
 * access-log line, no count in {@code levee_requests_total}, and the alias's answer carried no
 * {@code x-levee-request-id}. Each is now recorded like the other requests answered outside the
 * pipeline, under {@code endpoint="other"}, and carries Levee's request id.
 */
class ModelsRequestsRecordedRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big]\n" + Harness.BASE_POLICY;

  @Test
  void modelRequestsAreCountedAndCarryLeveesRequestId() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      HttpResponse<String> alias = h.getWith("/v1/models/chat", "sk-ant-test");
      assertThat(alias.statusCode()).isEqualTo(200);
      assertThat(alias.headers().firstValue("x-levee-request-id")).as("findable in the logs").isPresent();

      String ok = "levee_requests_total{endpoint=\"other\",outcome=\"ok\",tier=\"-\"} 1.0";
      assertThat(h.awaitMetrics(ok)).contains(ok);
    }
  }
}
