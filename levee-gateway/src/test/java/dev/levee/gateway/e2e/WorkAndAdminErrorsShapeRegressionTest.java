package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression: the jobs, batches and admin endpoints answered their errors without {@code
 * request_id} in the body, unlike the Messages path, so a client could not quote the id that
 * {@code x-levee-request-id} gave. Every one of them now has the Messages error shape, {@code
 * {"type":"error","error":{"type","message"},"request_id"}}, with the same id in the header.
 */
class WorkAndAdminErrorsShapeRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big]\nadmin:\n  token: drill-token\n"
      + Harness.BASE_POLICY;

  @Test
  void jobsBatchesAndAdminErrorsCarryTheRequestIdInBodyAndHeader() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      Map<String, String> key = Map.of("x-api-key", "sk-ant-test");
      Map<String, String> admin = Map.of("authorization", "Bearer drill-token");

      expectError(h.getWith("/v1/levee/jobs/job_nothing", "sk-ant-test"), 404, "not_found_error");
      expectError(h.post("/v1/levee/jobs/job_nothing", "", key), 405, "invalid_request_error");
      expectError(h.getWith("/v1/messages/batches/msgbatch_nothing", "sk-ant-test"), 404, "not_found_error");
      expectError(h.getWith("/v1/messages/batches/msgbatch_nothing/elsewhere", "sk-ant-test"), 404, "not_found_error");
      expectError(h.post("/v1/messages/batches", "not json", key), 400, "invalid_request_error");
      expectError(h.post("/v1/messages/batches/msgbatch_nothing/results", "", key), 405, "invalid_request_error");
      expectError(h.post("/v1/messages/batches", "{}", Map.of("x-api-key", "sk-ant-test", "idempotency-key", "k".repeat(256))),
          400, "invalid_request_error");
      // found by a newcomer trial: an idempotency-key error on /v1/messages had no id at all
      expectError(h.post("/v1/messages", "{}", Map.of("x-api-key", "sk-ant-test", "idempotency-key", "k".repeat(256))),
          400, "invalid_request_error");
      expectError(h.get("/admin/tiers"), 401, "authentication_error");
      expectError(h.post("/admin/nothing", "", admin), 404, "not_found_error");
      expectError(h.post("/admin/tiers/default", "[1]", admin), 400, "invalid_request_error");
      expectError(h.post("/admin/tiers/no-such-feature", "{}", admin), 404, "not_found_error");
    }
  }

  private static void expectError(HttpResponse<String> response, int status, String type) {
    String what = response.request().method() + " " + response.uri().getPath();
    assertThat(response.statusCode()).as(what).isEqualTo(status);
    JsonNode body = Json.tryParse(response.body());
    assertThat(body).as(what + ": " + response.body()).isNotNull();
    assertThat(body.path("type").asText()).as(what).isEqualTo("error");
    assertThat(body.path("error").path("type").asText()).as(what).isEqualTo(type);
    assertThat(body.path("error").path("message").asText()).as(what).isNotBlank();
    String id = body.path("request_id").asText();
    assertThat(id).as(what + ": " + response.body()).startsWith("lv_");
    assertThat(response.headers().allValues("x-levee-request-id")).as(what).containsExactly(id);
  }
}
