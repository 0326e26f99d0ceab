package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Newcomer trial, session 11: {@code /admin/*} answers — a 401 for a wrong token, a tier forced —
 * left no access-log line and no count, so a guessed admin token went unnoticed and the request id
 * an admin answer carries could not be looked up. Each is now recorded like the other answers
 * outside the pipeline, under {@code endpoint="other"} (the token itself is never logged).
 */
class AdminRequestsRecordedRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big]\nadmin:\n  token: drill-token\n"
      + Harness.BASE_POLICY;

  @Test
  void aWrongTokenAndAForceAreCountedAndCarryARequestId() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      HttpResponse<String> guessed = h.post("/admin/tiers/default", "{\"tier\":\"T1\",\"for\":\"1m\"}",
          Map.of("authorization", "Bearer guess"));
      assertThat(guessed.statusCode()).isEqualTo(401);
      assertThat(guessed.headers().firstValue("x-levee-request-id")).isPresent();
      HttpResponse<String> forced = h.post("/admin/tiers/default", "{\"tier\":\"T1\",\"for\":\"1m\"}",
          Map.of("authorization", "Bearer drill-token"));
      assertThat(forced.statusCode()).isEqualTo(200);

      String refused = "levee_requests_total{endpoint=\"other\",outcome=\"refused\",tier=\"-\"} 1.0";
      String ok = "levee_requests_total{endpoint=\"other\",outcome=\"ok\",tier=\"-\"} 1.0";
      // both awaited: the 401's count may land after the 200's (each is counted after its answer went out)
      assertThat(h.awaitMetrics(refused, ok)).contains(refused, ok);
    }
  }
}
