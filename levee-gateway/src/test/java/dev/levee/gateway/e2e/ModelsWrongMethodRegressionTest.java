package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * An API fidelity audit (session 20): {@code DELETE /v1/models} answered 404 "Levee does not serve",
 * as if the path did not exist, where {@code /v1/messages}, {@code /health} and the admin paths
 * answer a wrong method with 405 and {@code Allow} (RFC 9110 §15.5.6). The models paths now do too,
 * and nothing reaches the upstream.
 */
class ModelsWrongMethodRegressionTest {

  @Test
  void aWrongMethodOnAModelsPathGets405WithAllow() throws Exception {
    try (Harness h = Harness.start(Harness.BASE_POLICY)) {
      for (String[] call : new String[][] {{"DELETE", "/v1/models"}, {"POST", "/v1/models"},
          {"PUT", "/v1/models/emu-ok"}, {"DELETE", "/v1/models/emu-ok"}}) {
        HttpResponse<String> response = send(h, call[0], call[1]);
        JsonNode body = Json.tryParse(response.body());

        assertThat(response.statusCode()).as(String.join(" ", call) + ": " + response.body()).isEqualTo(405);
        assertThat(response.headers().allValues("allow")).containsExactly("GET, HEAD");
        assertThat(body.at("/error/type").asText()).isEqualTo("invalid_request_error");
        assertThat(body.at("/error/message").asText()).contains(call[0] + " is not allowed on ");
      }
      assertThat(send(h, "GET", "/v1/models").statusCode()).isEqualTo(200);
      assertThat(h.emulator.log()).as("only the GET went upstream").singleElement()
          .satisfies(e -> assertThat(e.method()).isEqualTo("GET"));
    }
  }

  private static HttpResponse<String> send(Harness h, String method, String path) throws Exception {
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + path))
          .header("x-api-key", "sk-a").header(Harness.VERSION, Harness.DEFAULT_VERSION)
          .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
