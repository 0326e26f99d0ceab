package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.emulator.EmulatorOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A request without {@code anthropic-version} went on into the pipeline: an {@code
 * idempotency-key} replayed the answer stored for a well-formed request (as would the cache, or the
 * outage queue accept it), where the Anthropic API refuses it with 400 {@code
 * invalid_request_error} "anthropic-version: header is required". The gateway now refuses it the
 * same way at the door, before idempotency keys, cache, tiers, the queue and batches, on every API
 * path it serves; nothing reaches the upstream.
 */
class AnthropicVersionRequiredRegressionTest {

  private static final String BODY =
      "{\"model\":\"emu-ok\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";

  @Test
  void aRequestWithoutTheVersionGetsTheApisRefusalNotAStoredAnswer() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), Harness.BASE_POLICY)) {
      HttpResponse<String> stored = h.post("/v1/messages", BODY, Map.of("x-api-key", "sk-a", "idempotency-key", "k-1"));
      assertThat(stored.statusCode()).isEqualTo(200);
      int upstreamCalls = h.emulator.log().size();

      HttpResponse<String> replay = withoutVersion(h, "POST", "/v1/messages", Map.of("idempotency-key", "k-1"));

      assertRefused(replay);
      assertThat(replay.headers().firstValue("idempotent-replayed")).isEmpty();
      assertThat(h.emulator.log()).as("nothing forwarded").hasSize(upstreamCalls);
    }
  }

  @Test
  void everyApiPathRefusesAMissingOrBlankVersionAndLeveesOwnPathsDoNot() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), Harness.BASE_POLICY)) {
      for (String[] call : new String[][] {{"POST", "/v1/messages"}, {"POST", "/v1/messages/count_tokens"},
          {"POST", "/v1/messages/batches"}, {"GET", "/v1/messages/batches"}, {"GET", "/v1/models"},
          {"GET", "/v1/models/emu-ok"}}) {
        assertRefused(withoutVersion(h, call[0], call[1], Map.of()));
        assertRefused(withoutVersion(h, call[0], call[1], Map.of("anthropic-version", " ")));
      }
      assertThat(h.emulator.log()).as("nothing forwarded").isEmpty();

      assertThat(withoutVersion(h, "GET", "/health/live", Map.of()).statusCode()).isEqualTo(200);
      assertThat(withoutVersion(h, "GET", "/v1/levee/jobs/nope", Map.of()).body()).as("Levee's jobs API")
          .doesNotContain("anthropic-version");
      assertThat(withoutVersion(h, "GET", "/v1/models", Map.of("anthropic-version", "2023-01-01")).statusCode())
          .as("any version passes to the upstream, which judges it").isEqualTo(200);
    }
  }

  private static void assertRefused(HttpResponse<String> answer) {
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
    JsonNode body = Json.tryParse(answer.body());
    assertThat(body.path("type").asText()).isEqualTo("error");
    assertThat(body.path("error").path("type").asText()).isEqualTo("invalid_request_error");
    assertThat(body.path("error").path("message").asText()).isEqualTo("anthropic-version: header is required");
    assertThat(body.path("request_id").asText()).startsWith("lv_");
  }

  /** {@code method path} with a key, a JSON body for a POST, {@code headers}, and no {@code anthropic-version} unless named. */
  private static HttpResponse<String> withoutVersion(Harness h, String method, String path, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + path))
        .header("x-api-key", "sk-a")
        .method(method, method.equals("POST") ? HttpRequest.BodyPublishers.ofString(BODY)
            : HttpRequest.BodyPublishers.noBody());
    if (method.equals("POST")) {
      request.header("content-type", "application/json");
    }
    headers.forEach(request::setHeader);
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
