package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (issue 9, item 11): some errors showed Jackson or Java internals to clients —
 * character codes, {@code StreamReadConstraints.getMaxNestingDepth()}, {@code
 * JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS}, "HTTP/1.1 header parser received no bytes". Every
 * refusal is Anthropic-shaped and says what is wrong in plain words.
 */
class JavaInternalsInErrorsRegressionTest {

  private static final Map<String, String> JSON = Map.of("x-api-key", "k", "content-type", "application/json");

  private static final List<byte[]> MALFORMED = List.of(
      bytes("{"), bytes("{\"model\":"), bytes("{\"model\":\"s\",}"), bytes("{'model':'s'}"),
      bytes("{\"model\":\"s\"} trailing"), bytes("{\"model\":\"s\",\"x\":NaN}"), bytes("{\"model\":\"s\nx\"}"),
      bytes("{\"model\":\"\\uZZZZ\"}"), bytes("{\"model\":\"s\" \"x\":1}"), bytes("{\"model\":\"s\",\"x\":[1}"),
      bytes("{\"x\":" + "[".repeat(3000) + "]".repeat(3000) + "}"), bytes("{\"x\":1" + "0".repeat(20_000) + "}"),
      new byte[] {'{', '"', 'm', (byte) 0xff, '"', ':', '1', '}'}, new byte[] {(byte) 0xff, (byte) 0xfe, '{', '}'},
      bytes("{\"model\":\"s\",\"max_tokens\":5,\"model\":\"other\"}"), bytes("[1]"), bytes("{\"model\":7}"),
      bytes("{\"model\":\"s\",\"stream\":\"yes\"}"), bytes("{\"model\":\"s\",\"max_tokens\":1" + "0".repeat(30) + "}"));

  @Test
  void malformedBodiesOfEveryShapeGetPlainAnthropicShapedRefusals() throws Exception {
    try (Harness h = Harness.start("models:\n  s:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      for (String path : List.of("/v1/messages", "/v1/messages/count_tokens")) {
        for (byte[] body : MALFORMED) {
          HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + path))
              .header("x-api-key", "k").header("content-type", "application/json").header("anthropic-version", "2023-06-01")
              .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());

          assertPlainRefusal(response, 400, "invalid_request_error");
        }
      }
      assertThat(h.emulator.log()).isEmpty();
    }
  }

  @Test
  void anUpstreamThatHangsUpIsDescribedInPlainWords() throws Exception {
    String config = "models:\n  s:\n    chain: [emu/emu-reset-always]\npolicy:\n  retry: { max-retries: 0 }\n";
    try (Harness h = Harness.start(config)) {
      HttpResponse<String> response = h.post("/v1/messages",
          "{\"model\":\"s\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", JSON);

      assertPlainRefusal(response, 502, "api_error");
      assertThat(message(response)).contains("emu/emu-reset-always");
    }
  }

  @Test
  void anUnreachableUpstreamBehindAPassThroughIsDescribedInPlainWords() throws Exception {
    try (Harness h = Harness.start(Harness.BASE_POLICY)) {
      h.emulator.close();

      HttpResponse<String> response = h.get("/v1/models");

      assertPlainRefusal(response, 502, "api_error");
      assertThat(message(response)).isEqualTo("the upstream could not be reached: connection refused");
    }
  }

  private static void assertPlainRefusal(HttpResponse<String> response, int status, String type) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    JsonNode body = Json.tryParse(response.body());
    assertThat(body).as(response.body()).isNotNull();
    assertThat(body.path("type").asText()).isEqualTo("error");
    assertThat(body.path("error").path("type").asText()).isEqualTo(type);
    assertThat(message(response)).isNotBlank().doesNotContain("code ", "Source", "`", "Jackson", "Stream", "Feature",
        "CTRL-CHAR", "marker", "Exception", "java.", "HTTP/1.1", "parser", "null");
  }

  private static String message(HttpResponse<String> response) {
    return Json.tryParse(response.body()).path("error").path("message").asText();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }
}
