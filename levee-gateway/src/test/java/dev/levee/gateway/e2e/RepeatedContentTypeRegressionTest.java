package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 15, hostile clients): a request with two {@code content-type} lines ({@code
 * application/json}, then {@code text/plain}) was read by the first and forwarded; one that joined
 * types with a comma after a parameter ({@code application/json; charset=utf-8, text/plain}) passed
 * as JSON. Which of two a server reads differs between servers; both are now refused at the door
 * with 400 {@code invalid_request_error} on {@code /v1/messages} and on batch creation, and nothing
 * is forwarded or stored.
 */
class RepeatedContentTypeRegressionTest {

  private static final String BODY = "{\"model\":\"chat\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  private static final String BATCH = "{\"requests\":[{\"custom_id\":\"a\",\"params\":" + BODY + "}]}";

  @Test
  void twoContentTypesOrACommaJoinedOneAreRefusedOnMessagesAndBatches() throws Exception {
    String yaml = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY + """
        queue:
          folder: ${QUEUE}
          secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
        """;
    try (Harness h = Harness.start(yaml)) {
      for (String path : new String[] {"/v1/messages", "/v1/messages/batches"}) {
        String body = path.endsWith("batches") ? BATCH : BODY;
        assertRefused(raw(h, path, "Content-Type: application/json\r\nContent-Type: text/plain\r\n", body),
            "2 content-type headers");
        assertRefused(raw(h, path, "Content-Type: application/json; charset=utf-8, text/plain\r\n", body),
            "names more than one media type");
      }
      assertThat(h.emulator.log()).as("nothing forwarded").isEmpty();
      assertThat(h.getWith("/v1/messages/batches", "k").body()).as("nothing stored").contains("\"data\":[]");
      assertThat(raw(h, "/v1/messages", "Content-Type: application/json\r\n", BODY)).as("one line still passes")
          .startsWith("HTTP/1.1 200");
    }
  }

  private static void assertRefused(String answer, String says) {
    assertThat(answer).startsWith("HTTP/1.1 400");
    JsonNode error = RawHttp.body(answer).path("error");
    assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
    assertThat(error.path("message").asText()).contains(says);
  }

  /** One POST with the given content-type lines ({@link RawHttp}); the whole answer, read to the close. */
  private static String raw(Harness h, String path, String typeLines, String body) throws Exception {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return RawHttp.exchange(h, RawHttp.ascii("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\nanthropic-version: 2023-06-01\r\n"
        + typeLines + "Content-Length: " + bytes.length + "\r\nConnection: close\r\n\r\n"), bytes);
  }
}
