package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 13): a batch request whose {@code model} no alias names and
 * that fails the names ingress allows ({@code ClientNames}: a space, a control character, a brace,
 * over 256 characters) was accepted and stored, and each such request errored later when a worker
 * ran it, while {@code /v1/messages} refuses it at once ({@code
 * ClientNamesCheckedAtIngressRegressionTest}). Batch creation now refuses the whole batch with the
 * same words, at the request's place, and stores nothing; aliases and real model ids still pass.
 */
class BatchModelNameRegressionTest {

  @Test
  void aBatchNamingAModelIngressWouldRefuseIsRefusedAtCreation() throws Exception {
    String yaml = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY + """
        queue:
          folder: ${QUEUE}
          secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
        """;
    try (Harness h = Harness.start(yaml)) {
      for (String model : new String[] {"claude 3", "a{b}", "c".repeat(257), "emu/x\r\nx-evil: 1"}) {
        HttpResponse<String> r = h.post("/v1/messages/batches", batch("chat", model), Map.of("x-api-key", "k"));

        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        JsonNode error = Json.tryParse(r.body()).path("error");
        assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.path("message").asText()).startsWith("requests.1.params.model: must be a configured alias");
      }
      assertThat(h.getWith("/v1/messages/batches", "k").body()).as("nothing stored").contains("\"data\":[]");

      HttpResponse<String> fine = h.post("/v1/messages/batches", batch("chat", "claude-3-5-sonnet@20240620"),
          Map.of("x-api-key", "k"));
      assertThat(fine.statusCode()).as(fine.body()).isEqualTo(200);
    }
  }

  private static String batch(String first, String second) throws Exception {
    return "{\"requests\":[" + request("a", first) + "," + request("b", second) + "]}";
  }

  private static String request(String id, String model) throws Exception {
    return "{\"custom_id\":\"" + id + "\",\"params\":{\"model\":" + Json.MAPPER.writeValueAsString(model)
        + ",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}";
  }
}
