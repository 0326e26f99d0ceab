package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Regressions of the ingress stage, each named for the bug it fixed. */
class IngressRegressionTest {

  private static final Map<String, String> JSON = Map.of("x-api-key", "k", "content-type", "application/json");

  /** Regression: a 21 MB string (a base64 document) or deep nesting got Jetty's HTML 500. */
  @Test
  void aLongStringOrDeepNestingWithinTheLimitIsServed() throws Exception {
    try (Harness h = Harness.start(Harness.BASE_POLICY)) {
      String document = "{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\""
          + "A".repeat(21_000_000) + "\"}]}";
      String nested = "{\"model\":\"emu-ok\",\"max_tokens\":5,\"metadata_x\":" + "[".repeat(1500) + "]".repeat(1500)
          + ",\"messages\":[{\"role\":\"user\",\"content\":\"deep\"}]}";

      assertThat(h.post("/v1/messages", document, JSON).statusCode()).isEqualTo(200);
      assertThat(h.post("/v1/messages", nested, JSON).statusCode()).isEqualTo(200);
    }
  }

  /** Regression: an empty model created a target named "emu/" and broke /health until restart. */
  @Test
  void anEmptyModelIsRefusedAndHealthStaysReadable() throws Exception {
    try (Harness h = Harness.start(Harness.BASE_POLICY)) {
      HttpResponse<String> refused = h.post("/v1/messages",
          "{\"model\":\"\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", JSON);

      assertThat(refused.statusCode()).isEqualTo(400);
      assertThat(Json.tryParse(refused.body()).path("error").path("message").asText()).startsWith("model:");
      assertThat(h.get("/health").statusCode()).isEqualTo(200);
      assertThat(h.emulator.log()).isEmpty();
    }
  }
}
