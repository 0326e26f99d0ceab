package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12): a float no BigDecimal holds ({@code 1e99999999999}) in a client's body
 * made the emulator fail with 500, so the gateway retried a client's bad request on every target
 * and opened their circuits for everyone; in an admin force it was Levee's own 500. Both are now
 * the client's 400 {@code invalid_request_error}, and the next good request goes to the first target.
 */
class HugeExponentThroughTheGatewayRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big, emu/claude-small]\n"
      + "admin:\n  token: t\n" + Harness.BASE_POLICY;
  private static final Map<String, String> KEY = Map.of("x-api-key", "sk-ant-test", "content-type", "application/json",
      "anthropic-version", "2023-06-01");

  @Test
  void aHugeExponentIsTheClientsErrorAndOpensNoCircuit() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      for (int i = 0; i < 6; i++) { // more than a breaker's minimum calls
        HttpResponse<String> bad = h.post("/v1/messages", "{\"model\":\"chat\",\"max_tokens\":8,"
            + "\"temperature\":1e99999999999,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", KEY);
        assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
        assertThat(Json.tryParse(bad.body()).path("error").path("type").asText()).isEqualTo("invalid_request_error");
      }
      HttpResponse<String> good = h.post("/v1/messages",
          "{\"model\":\"chat\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", KEY);
      assertThat(good.statusCode()).as(good.body()).isEqualTo(200);
      assertThat(good.headers().firstValue("x-levee-model")).hasValue("emu/claude-big");

      HttpResponse<String> force = h.post("/admin/tiers/default", "{\"tier\":1e99999999999}",
          Map.of("authorization", "Bearer t"));
      assertThat(force.statusCode()).as(force.body()).isEqualTo(400);
      assertThat(Json.tryParse(force.body()).path("error").path("type").asText()).isEqualTo("invalid_request_error");
    }
  }
}
