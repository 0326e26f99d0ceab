package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 13, hostile clients): Levee's own errors quoted the client's values in
 * full — a 5,000-character method in the 405, a 7,000-character path in the 404, a 10,000-digit
 * {@code max_tokens}, a 50,000-character field name of a batch, a 5,000-character batch or job id —
 * so each refusal was as large as what provoked it. Each is now quoted cut to 100 characters
 * ({@code ClientText.shown}); the answer stays Anthropic-shaped and says what was wrong.
 */
class ClientValuesEchoedCutRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY;
  private static final String PARAMS = "{\"model\":\"chat\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";

  @Test
  void aHugeMethodPathOrIdIsQuotedCut() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      assertCut(get(h, "X".repeat(5_000), "/v1/messages"), 405, "X".repeat(100) + "... is not allowed on /v1/messages");
      assertCut(get(h, "GET", "/" + "a".repeat(7_000)), 404, "Levee does not serve GET /" + "a".repeat(99) + "...");
      assertCut(get(h, "GET", "/v1/messages/batches/" + "b".repeat(5_000)), 404, "b".repeat(100) + "...'");
      assertCut(get(h, "GET", "/v1/levee/jobs/" + "j".repeat(5_000)), 404, "j".repeat(100) + "...'");
      assertCut(get(h, "PATCH", "/v1/levee/jobs/" + "j".repeat(5_000)), 405, "/v1/levee/jobs/" + "j".repeat(85) + "...");
    }
  }

  @Test
  void aHugeNumberOrFieldNameInABodyIsQuotedCut() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      assertCut(post(h, "/v1/messages", "{\"model\":\"chat\",\"max_tokens\":" + "9".repeat(10_000) + ",\"messages\":[]}"),
          400, "was " + "9".repeat(100) + "...");
      String name = "k".repeat(50_000);
      assertCut(post(h, "/v1/messages/batches", "{\"requests\":[{\"custom_id\":\"a\",\"params\":" + PARAMS + "}],\""
          + name + "\":1}"), 400, "k".repeat(100) + "...: Extra inputs are not permitted");
      assertCut(post(h, "/v1/messages/batches", "{\"requests\":[{\"custom_id\":\"a\",\"" + name + "\":1,\"params\":"
          + PARAMS + "}]}"), 400, "requests.0." + "k".repeat(100) + "...: Extra inputs are not permitted");
    }
  }

  private static void assertCut(String answer, int status, String quoted) {
    assertThat(answer).startsWith("HTTP/1.1 " + status + " ");
    String message = RawHttp.body(answer).path("error").path("message").asText();
    assertThat(message).contains(quoted).hasSizeLessThan(400);
  }

  private static String get(Harness h, String method, String path) throws Exception {
    return RawHttp.exchange(h, RawHttp.ascii(method + " " + path + " HTTP/1.1\r\nHost: x\r\nx-api-key: k\r\nanthropic-version: 2023-06-01\r\n"
        + "connection: close\r\n\r\n"));
  }

  private static String post(Harness h, String path, String body) throws Exception {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return RawHttp.exchange(h, RawHttp.ascii("POST " + path + " HTTP/1.1\r\nHost: x\r\nx-api-key: k\r\nanthropic-version: 2023-06-01\r\n"
        + "content-type: application/json\r\ncontent-length: " + bytes.length + "\r\nconnection: close\r\n\r\n"), bytes);
  }
}
