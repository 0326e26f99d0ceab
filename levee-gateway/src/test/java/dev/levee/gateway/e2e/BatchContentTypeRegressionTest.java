package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 13): a batch sent as {@code text/plain} or with no {@code
 * content-type} was read as JSON and stored, while {@code /v1/messages} refuses both at the door
 * ({@code NonJsonContentTypeRegressionTest}). Batch creation now makes the same check, in the same
 * words, and stores nothing; {@code application/json} with parameters still passes.
 */
class BatchContentTypeRegressionTest {

  private static final String BATCH = "{\"requests\":[{\"custom_id\":\"a\",\"params\":{\"model\":\"chat\","
      + "\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}]}";

  @Test
  void aBatchNotSentAsJsonIsRefusedAndNothingStored() throws Exception {
    String yaml = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY + """
        queue:
          folder: ${QUEUE}
          secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
        """;
    try (Harness h = Harness.start(yaml);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      HttpResponse<String> plain = h.post("/v1/messages/batches", BATCH,
          Map.of("x-api-key", "k", "content-type", "text/plain"));
      HttpResponse<String> none = http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + "/v1/messages/batches"))
          .header("x-api-key", "k").header("anthropic-version", "2023-06-01").POST(HttpRequest.BodyPublishers.ofString(BATCH)).build(),
          HttpResponse.BodyHandlers.ofString());

      assertRefused(plain, "content-type: text/plain");
      assertRefused(none, "no content-type header");
      assertThat(h.getWith("/v1/messages/batches", "k").body()).as("nothing stored").contains("\"data\":[]");

      HttpResponse<String> json = h.post("/v1/messages/batches", BATCH,
          Map.of("x-api-key", "k", "content-type", "Application/JSON; charset=utf-8"));
      assertThat(json.statusCode()).as(json.body()).isEqualTo(200);
    }
  }

  private static void assertRefused(HttpResponse<String> r, String named) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    JsonNode error = Json.tryParse(r.body()).path("error");
    assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
    assertThat(error.path("message").asText()).isEqualTo(
        "The request body must be JSON sent with content-type: application/json (the request had " + named + ").");
  }
}
