package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 16): a request with two {@code x-api-key} lines was answered
 * 200 and forwarded with both, while Levee's tenant was the hash of the first key only — an
 * upstream that authenticates with the other would bill one tenant for work Levee counted, cached
 * and limited as another's. Two {@code x-api-key}, {@code authorization} or {@code
 * anthropic-version} lines are now refused at the door with 400 {@code invalid_request_error},
 * naming the header and never a key, and nothing is forwarded.
 */
class RepeatedKeyHeaderRegressionTest {

  private static final String BODY = "{\"model\":\"chat\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  @Test
  void twoKeyOrVersionLinesAreRefusedWithoutEchoingAKey() throws Exception {
    try (Harness h = Harness.start("models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY)) {
      String[][] cases = {
          {"x-api-key: sk-ant-first\r\nx-api-key: sk-ant-second\r\nanthropic-version: 2023-06-01\r\n", "2 x-api-key headers"},
          {"x-api-key: sk-ant-first\r\nauthorization: Bearer sk-ant-a\r\nAuthorization: Bearer sk-ant-b\r\n"
              + "anthropic-version: 2023-06-01\r\n", "2 authorization headers"},
          {"x-api-key: sk-ant-first\r\nanthropic-version: 2023-06-01\r\nanthropic-version: 2023-01-01\r\n",
              "2 anthropic-version headers"},
      };
      for (String[] c : cases) {
        for (String path : new String[] {"/v1/messages", "/v1/models"}) {
          String answer = path.equals("/v1/models") ? get(h, path, c[0]) : post(h, path, c[0]);
          assertThat(answer).startsWith("HTTP/1.1 400").doesNotContain("sk-ant-");
          JsonNode error = RawHttp.body(answer).path("error");
          assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
          assertThat(error.path("message").asText()).contains(c[1]);
        }
      }
      assertThat(h.emulator.log()).as("nothing forwarded").isEmpty();
      assertThat(post(h, "/v1/messages", "x-api-key: sk-ant-first\r\nanthropic-version: 2023-06-01\r\n"
          + "idempotency-key: order-1\r\n")).as("one key").startsWith("HTTP/1.1 200");
      assertThat(post(h, "/v1/messages", "x-api-key: sk-ant-first\r\nanthropic-version: 2023-06-01\r\n"
          + "idempotency-key: order-1\r\nidempotency-key: order-2\r\n"))
          .as("two idempotency keys (session 25's newcomer trial: answered as a replay of the first)")
          .startsWith("HTTP/1.1 400").contains("2 idempotency-key headers");
      assertThat(post(h, "/v1/messages", "x-api-key: sk-ant-first\r\nanthropic-version: 2023-06-01\r\n"))
          .as("one of each still passes").startsWith("HTTP/1.1 200");
    }
  }

  private static String post(Harness h, String path, String lines) throws Exception {
    byte[] bytes = BODY.getBytes(StandardCharsets.UTF_8);
    return RawHttp.exchange(h, RawHttp.ascii("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + lines
        + "Content-Type: application/json\r\nContent-Length: " + bytes.length + "\r\nConnection: close\r\n\r\n"), bytes);
  }

  private static String get(Harness h, String path, String lines) throws Exception {
    return RawHttp.exchange(h, RawHttp.ascii("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + lines
        + "Connection: close\r\n\r\n"));
  }
}
