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
 * Regression (models-api): a {@code POST /v1/messages} whose {@code content-type} was {@code
 * text/plain}, curl's {@code -d} default {@code application/x-www-form-urlencoded}, or missing was
 * read as JSON and forwarded with that header, for the upstream to refuse (or not) at the price of
 * a call. The Anthropic API takes JSON only: Levee now answers at the door with an Anthropic-shaped
 * 400 {@code invalid_request_error} naming the header, and forwards nothing; {@code
 * application/json} with parameters or in another case passes.
 */
class NonJsonContentTypeRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY;
  private static final String BODY = "{\"model\":\"chat\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  @Test
  void aBodyNotSentAsJsonIsRefusedAtTheDoor() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      for (String type : new String[] {"text/plain", "application/x-www-form-urlencoded", "text/plain; charset=utf-8"}) {
        HttpResponse<String> refused = h.post("/v1/messages", BODY, Map.of("x-api-key", "k", "content-type", type));

        assertThat(refused.statusCode()).as(type).isEqualTo(400);
        JsonNode body = Json.tryParse(refused.body());
        assertThat(body.path("type").asText()).isEqualTo("error");
        assertThat(body.path("error").path("type").asText()).isEqualTo("invalid_request_error");
        assertThat(body.path("error").path("message").asText()).contains("content-type: application/json")
            .contains("content-type: " + type);
        assertThat(refused.headers().firstValue("x-levee-request-id")).isPresent();
      }
      HttpResponse<String> tokens = h.post("/v1/messages/count_tokens", BODY, Map.of("x-api-key", "k", "content-type", "text/plain"));
      assertThat(tokens.statusCode()).isEqualTo(400);
      assertThat(withoutContentType(h).statusCode()).isEqualTo(400);
      assertThat(Json.tryParse(withoutContentType(h).body()).path("error").path("message").asText())
          .contains("no content-type header");
      assertThat(h.emulator.log()).as("nothing forwarded").isEmpty();
    }
  }

  @Test
  void jsonWithParametersOrInAnotherCasePasses() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      for (String type : new String[] {"application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8"}) {
        assertThat(h.post("/v1/messages", BODY, Map.of("x-api-key", "k", "content-type", type)).statusCode()).as(type)
            .isEqualTo(200);
      }
    }
  }

  /** A POST whose head has no content-type at all (the JDK client sends none unless told). */
  private static HttpResponse<String> withoutContentType(Harness h) throws Exception {
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + "/v1/messages")).header("x-api-key", "k")
          .header("anthropic-version", "2023-06-01")
          .POST(HttpRequest.BodyPublishers.ofString(BODY)).build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
