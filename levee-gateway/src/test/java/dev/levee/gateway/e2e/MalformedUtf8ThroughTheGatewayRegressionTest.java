package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 15, hostile clients), through the gateway: a {@code /v1/messages} or {@code
 * count_tokens} body whose message text holds an encoded surrogate ({@code ED A0 80}) or an
 * overlong form was forwarded, the parser having skipped or decoded it without a word. It is now
 * the client's 400 {@code invalid_request_error} naming the byte offset, and nothing is forwarded.
 */
class MalformedUtf8ThroughTheGatewayRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY;
  private static final String HEAD = "{\"model\":\"chat\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi";

  @Test
  void anIllFormedSequenceIsRefusedWithItsOffsetAndNotForwarded() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      for (String path : new String[] {"/v1/messages", "/v1/messages/count_tokens"}) {
        for (String hex : new String[] {"eda080", "c0af"}) {
          String answer = post(h, path, body(hex));

          assertThat(answer).as(path + " " + hex).startsWith("HTTP/1.1 400");
          JsonNode error = RawHttp.body(answer).path("error");
          assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
          assertThat(error.path("message").asText()).startsWith("request body is not valid UTF-8: the bytes at offset "
              + HEAD.length() + " (");
        }
      }
      assertThat(h.emulator.log()).as("nothing forwarded").isEmpty();
      assertThat(post(h, "/v1/messages", body("e282ac"))).as("a euro sign is UTF-8").startsWith("HTTP/1.1 200");
    }
  }

  private static byte[] body(String hex) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(HEAD.getBytes(StandardCharsets.UTF_8));
    out.writeBytes(HexFormat.of().parseHex(hex));
    out.writeBytes("\"}]}".getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }

  private static String post(Harness h, String path, byte[] body) throws Exception {
    return RawHttp.exchange(h, RawHttp.ascii("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\nanthropic-version: 2023-06-01\r\n"
        + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n"), body);
  }
}
