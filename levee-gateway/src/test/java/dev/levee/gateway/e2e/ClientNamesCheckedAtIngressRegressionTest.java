package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.emulator.EmulatorOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 9): a model name no alias names went upstream unchecked. A
 * 100,000-character name was sent upstream (a generation spent), then its echo in {@code
 * x-levee-model} failed the head: {@code 500 "Response Header Fields Too Large"}, which SDKs retry,
 * spending again; a name holding CRLF became a Redis key. Now ingress refuses such names with an
 * Anthropic-shaped 400 naming the {@code model} field before any upstream call, and the ids
 * Bedrock and Vertex use pass. One gateway serves every case, in turn.
 */
class ClientNamesCheckedAtIngressRegressionTest {

  private static final String CONFIG = """
      models:
        fast: { chain: [emu/claude-3-haiku] }
      policy:
        retry: { max-retries: 0 }
      """;

  @Test
  void badNamesAreRefusedBeforeAnyUpstreamCallAndRealIdsPass() throws Exception {
    EmulatorOptions options = EmulatorOptions.builder().timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO).build();
    try (Harness h = Harness.start(options, CONFIG);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      for (String model : new String[] {"c".repeat(100_000), "emu/fast\r\nx-evil: 1", "claude 3", "c".repeat(257)}) {
        HttpResponse<String> r = send(http, h, model, Map.of());
        assertThat(r.statusCode()).as(r.body().substring(0, Math.min(300, r.body().length()))).isEqualTo(400);
        JsonNode error = Json.MAPPER.readTree(r.body()).path("error");
        assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.path("message").asText()).startsWith("model: ");
        assertThat(r.headers().map()).doesNotContainKey("x-evil").doesNotContainKey("x-levee-model");
      }
      assertThat(h.emulator.log()).as("no generation spent on a refused name").isEmpty();

      for (String model : new String[] {"anthropic.claude-3-5-sonnet-20240620-v1:0", "claude-3-5-sonnet@20240620",
          "c".repeat(256), "fast"}) {
        HttpResponse<String> r = send(http, h, model, Map.of());
        assertThat(r.statusCode()).as(r.body().substring(0, Math.min(300, r.body().length()))).isEqualTo(200);
        assertThat(r.headers().firstValue("x-levee-model")).isPresent();
      }

      HttpResponse<String> tenant = send(http, h, "fast", Map.of("x-levee-tenant", "t".repeat(129)));
      assertThat(tenant.statusCode()).isEqualTo(400);
      assertThat(Json.MAPPER.readTree(tenant.body()).path("error").path("message").asText()).startsWith("x-levee-tenant: ");
      assertThat(send(http, h, "fast", Map.of("x-levee-tenant", "team-a")).statusCode()).isEqualTo(200);
      assertThat(h.emulator.log()).hasSize(5);
    }
  }

  private static HttpResponse<String> send(HttpClient http, Harness h, String model, Map<String, String> headers)
      throws Exception {
    String body = "{\"model\":" + Json.MAPPER.writeValueAsString(model)
        + ",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + "/v1/messages"))
        .header("x-api-key", "k").header("content-type", "application/json").header("anthropic-version", "2023-06-01")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(request::setHeader);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
