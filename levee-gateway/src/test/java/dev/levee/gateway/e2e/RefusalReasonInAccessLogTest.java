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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every refusal was logged {@code outcome=refused invalid_request_error} (or its error type),
 * whatever the cause: an operator chasing a client's 400s could not tell a missing {@code
 * anthropic-version} from a body that is not JSON. Each refusal's line now ends with a fixed code,
 * {@code refusal=…}, never the error's message, which may quote what the client sent.
 */
class RefusalReasonInAccessLogTest {

  private static final String CONFIG = Harness.BASE_POLICY + """
      models:
        chat:
          chain: [emu/claude-big]
      """;
  private static final String BODY =
      "{\"model\":\"chat\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  /** A token the JSON parser's refusal quotes back to the client: it must not reach the log. */
  private static final String SECRET_TOKEN = "zq7SecretUserText4711";

  @Test
  void eachRefusalAtIngressAndAtTheDispatcherNamesItsReason() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), CONFIG, "max-body: 1KiB");
        AccessLines access = new AccessLines()) {
      Map<String, String> expected = new LinkedHashMap<>(); // request id -> the end of its line
      expected.put(refusedId(h, "POST", "/v1/messages", BODY, Map.of("content-type", "application/json")),
          "refused invalid_request_error refusal=missing_anthropic_version");
      expected.put(refusedId(h, "POST", "/v1/messages", BODY, api("text/plain")),
          "refused invalid_request_error refusal=unsupported_content_type");
      expected.put(refusedId(h, "POST", "/v1/messages", "{\"max_tokens\":16,\"messages\":[]}", api(null)),
          "refused invalid_request_error refusal=missing_model");
      expected.put(refusedId(h, "POST", "/v1/messages", "{\"model\":\"no such model\",\"max_tokens\":16}", api(null)),
          "refused invalid_request_error refusal=bad_model");
      expected.put(refusedId(h, "POST", "/v1/messages", "{\"model\":\"chat\",\"pad\":\"" + "x".repeat(2048) + "\"}",
          api(null)), "refused request_too_large refusal=body_too_large");
      Map<String, String> badKey = new LinkedHashMap<>(api(null));
      badKey.put("idempotency-key", "k".repeat(256));
      expected.put(refusedId(h, "POST", "/v1/messages", BODY, badKey),
          "refused invalid_request_error refusal=bad_idempotency_key");
      expected.put(refusedId(h, "PUT", "/v1/messages", BODY, api(null)),
          "refused invalid_request_error refusal=method_not_allowed");
      expected.put(refusedId(h, "GET", "/v2/nowhere", null, api(null)),
          "refused not_found_error refusal=unknown_path");

      List<String> lines = access.await(expected.keySet());
      expected.forEach((id, end) -> assertThat(lines).as(id)
          .anySatisfy(line -> assertThat(line).contains(" - " + id + " ").endsWith("outcome=" + end)));
    }
  }

  @Test
  void aBodyThatIsNotJsonIsNamedSoAndItsBytesStayOutOfTheLog() throws Exception {
    try (Harness h = Harness.start(CONFIG); AccessLines access = new AccessLines()) {
      HttpResponse<String> refused = send(h, "POST", "/v1/messages",
          "{\"model\":\"chat\",\"messages\":" + SECRET_TOKEN + "}", api(null));
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
      JsonNode answer = Json.MAPPER.readTree(refused.body()); // the client's answer is as before: it names the token
      assertThat(answer.path("error").path("type").asText()).isEqualTo("invalid_request_error");
      assertThat(answer.path("error").path("message").asText()).contains(SECRET_TOKEN);
      assertThat(answer.path("error").fieldNames()).toIterable().containsExactlyInAnyOrder("type", "message");
      String id = id(refused);

      List<String> lines = access.await(List.of(id));
      assertThat(lines).anySatisfy(line -> assertThat(line).contains(" - " + id + " ")
          .endsWith("outcome=refused invalid_request_error refusal=body_not_json"));
      assertThat(String.join("\n", access.lines())).doesNotContain(SECRET_TOKEN);
      String counted = "levee_refusals_total{endpoint=\"messages\",reason=\"body_not_json\"} 1.0";
      assertThat(h.awaitMetrics(counted)).contains(counted);
    }
  }

  @Test
  void refusalsAtTheServersDoorNameTheirReason() throws Exception {
    try (Harness h = Harness.start(CONFIG); AccessLines access = new AccessLines()) {
      String h2c = RawHttp.exchange(h, RawHttp.ascii("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
          new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0}); // an HTTP/2 client's preface and an empty SETTINGS frame
      assertThat(h2c).startsWith("HTTP/1.1 426");
      String gzip = RawHttp.exchange(h, RawHttp.ascii("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          + "anthropic-version: 2023-06-01\r\ncontent-type: application/json\r\ntransfer-encoding: gzip, chunked\r\n"
          + "connection: close\r\n\r\n0\r\n\r\n"));
      assertThat(gzip).startsWith("HTTP/1.1 501");

      List<String> ids = List.of(RawHttp.body(h2c).path("request_id").asText(),
          RawHttp.body(gzip).path("request_id").asText());
      List<String> lines = access.await(ids);
      assertThat(lines).anySatisfy(line -> assertThat(line).contains(" - " + ids.get(0) + " ")
          .endsWith("outcome=refused invalid_request_error refusal=http2_not_supported"));
      assertThat(lines).anySatisfy(line -> assertThat(line).contains(" - " + ids.get(1) + " ")
          .endsWith("outcome=refused invalid_request_error refusal=unsupported_transfer_encoding"));
    }
  }

  /** The headers of an API call: a version, a key, and {@code contentType} (null: JSON). */
  private static Map<String, String> api(String contentType) {
    return Map.of(Harness.VERSION, Harness.DEFAULT_VERSION, "x-api-key", "sk-test-client-key",
        "content-type", contentType == null ? "application/json" : contentType);
  }

  /** Sends a request that must be refused (4xx), and returns its id. */
  private static String refusedId(Harness h, String method, String path, String body, Map<String, String> headers)
      throws Exception {
    HttpResponse<String> response = send(h, method, path, body, headers);
    assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isBetween(400, 499);
    return id(response);
  }

  private static String id(HttpResponse<String> response) {
    return response.headers().firstValue("x-levee-request-id").orElseThrow();
  }

  private static HttpResponse<String> send(Harness h, String method, String path, String body,
      Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + path))
        .timeout(Duration.ofSeconds(20))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(request::header);
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
