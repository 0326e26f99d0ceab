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
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): a request the server's guard refused before any handler saw it —
 * here the 529 of {@code server.max-concurrent} — had an Anthropic-shaped body without {@code
 * request_id} and no {@code x-levee-request-id}, unlike every other error. It now carries both.
 * Regression (session 4 leftover): such a refusal was missing from the access log and from {@code
 * levee_requests_total}, so an operator saw load shed at the door nowhere; it is now counted as
 * {@code refused} like a refusal at ingress.
 */
class RefusedAtTheDoorRequestIdRegressionTest {

  @Test
  void aRequestOverTheConcurrencyLimitIsRefusedWithARequestIdAndCounted() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(),
        "models:\n  slow:\n    chain: [emu/emu-stall-1-always]\n  fast:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY,
        "max-concurrent: 1");
         HttpClient holder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      holder.sendAsync(request(h, "slow"), HttpResponse.BodyHandlers.ofString()); // holds the one permit
      h.emulator.awaitLog(log -> !log.isEmpty(), Duration.ofSeconds(10)); // it reached the upstream: it holds it
      assertThat(h.get("/metrics").body()).doesNotContainPattern("levee_requests_total\\{[^}]*outcome=\"refused\"");

      HttpResponse<String> refused = h.post("/v1/messages", body("fast"), java.util.Map.of("content-type",
          "application/json", "x-api-key", "sk-test-client-key", "anthropic-version", "2023-06-01"));

      assertThat(refused.statusCode()).as("refused while the first request holds the only permit").isEqualTo(529);
      JsonNode error = Json.tryParse(refused.body());
      assertThat(error.path("error").path("type").asText()).isEqualTo("overloaded_error");
      String id = error.path("request_id").asText();
      assertThat(id).startsWith("lv_");
      assertThat(refused.headers().firstValue("x-levee-request-id")).contains(id);
      String counted = "levee_requests_total{endpoint=\"messages\",outcome=\"refused\",tier=\"-\"} 1.0"; // recorded after the answer
      assertThat(h.awaitMetrics(counted)).as("the control lane passes the limit; the 529 is counted").contains(counted);
      holder.shutdownNow(); // the stalled request's client leaves
    }
  }

  private static HttpRequest request(Harness h, String model) {
    return HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + "/v1/messages"))
        .header("content-type", "application/json").header("x-api-key", "sk-test-client-key")
        .header("anthropic-version", "2023-06-01").POST(HttpRequest.BodyPublishers.ofString(body(model))).build();
  }

  private static String body(String model) {
    return "{\"model\":\"" + model + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  }
}
