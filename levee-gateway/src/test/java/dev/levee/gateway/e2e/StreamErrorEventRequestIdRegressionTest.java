package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.levee.anthropic.Json;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 7): the {@code event: error} Levee writes when it cannot complete a stream
 * had no {@code request_id}, unlike every other error Levee writes (and unlike the API's own error
 * bodies), so a client holding only the failed stream could not name the request in Levee's log. It
 * now carries Levee's id of the request, the one in {@code x-levee-request-id}. An upstream's own
 * final {@code event: error} is still relayed exactly as it came (its {@code request_id} names the
 * upstream's request).
 */
class StreamErrorEventRequestIdRegressionTest {

  private static final Map<String, String> HEADERS = Map.of("content-type", "application/json",
      "x-api-key", "sk-test-client-key", "anthropic-version", "2023-06-01");

  /** An upstream's final in-band error, after the first delta (an {@code invalid_request_error} is never retried). */
  private static final String UPSTREAM_ERROR =
      "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"upstream says no\"},"
          + "\"request_id\":\"req_upstream_1\"}";

  @Test
  void anEventErrorLeveeWritesCarriesTheRequestsLeveeId() throws Exception {
    String config = "models:\n  s:\n    chain: [emu/emu-cut-5]\n    resume: off\n" + Harness.BASE_POLICY;
    try (Harness h = Harness.start(config)) {
      HttpResponse<String> response = h.post("/v1/messages", body("s"), HEADERS);

      assertThat(response.statusCode()).isEqualTo(200);
      JsonNode error = errorEvent(response.body());
      assertThat(error.path("error").path("message").asText()).contains("incomplete");
      String id = response.headers().firstValue("x-levee-request-id").orElseThrow();
      assertThat(id).startsWith("lv_");
      assertThat(error.path("request_id").asText()).as(response.body()).isEqualTo(id);
    }
  }

  @Test
  void anUpstreamsFinalEventErrorIsRelayedAsItCame() throws Exception {
    HttpServer upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    upstream.createContext("/v1/messages", exchange -> {
      exchange.getRequestBody().readAllBytes();
      exchange.getResponseHeaders().add("content-type", "text/event-stream");
      exchange.sendResponseHeaders(200, 0);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_fake\","
            + "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"fake-model\",\"content\":[],\"stop_reason\":null,"
            + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
            + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
            + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
            + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
            + "\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n"
            + "event: error\ndata: " + UPSTREAM_ERROR + "\n\n").getBytes(StandardCharsets.UTF_8));
      }
    });
    upstream.start();
    String config = "  fake:\n    url: http://127.0.0.1:" + upstream.getAddress().getPort() + "\n"
        + "models:\n  s:\n    chain: [fake/fake-model]\n" + Harness.BASE_POLICY;
    try (Harness h = Harness.start(config)) {
      HttpResponse<String> response = h.post("/v1/messages", body("s"), HEADERS);

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).contains("event: error\ndata: " + UPSTREAM_ERROR + "\n\n").doesNotContain("lv_");
    } finally {
      upstream.stop(0);
    }
  }

  /** The data of the stream's {@code event: error}. */
  private static JsonNode errorEvent(String stream) {
    int at = stream.indexOf("event: error\ndata: ");
    assertThat(at).as(stream).isNotNegative();
    String rest = stream.substring(at + "event: error\ndata: ".length());
    return Json.tryParse(rest.substring(0, rest.indexOf('\n')));
  }

  private static String body(String model) {
    return "{\"model\":\"" + model + "\",\"max_tokens\":64,\"stream\":true,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  }
}
