package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (hostile-client session): a query whose percent-encoded bytes are not UTF-8 ({@code
 * ?limit=%ff}) is a valid RFC 3986 query, so it passed the door's check, then made Jetty's parameter
 * parser throw: {@code GET /v1/messages/batches?limit=%ff} and {@code /admin/jobs?state=%ff} got a 500
 * {@code api_error} with a stack trace at ERROR in the log, and {@code /v1/models?after_id=%ff} was sent
 * upstream as it was. Each is now the client's 400 {@code invalid_request_error} at the door, on every
 * path, as any other malformed query.
 */
class QueryNotUtf8RegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big]\nadmin:\n  token: t\n"
      + Harness.BASE_POLICY;

  private static final List<String> BAD = List.of("/v1/messages/batches?limit=%ff",
      "/v1/messages/batches?after_id=%C3%28", "/admin/jobs?state=%ff", "/v1/models?after_id=%ff",
      "/v1/messages?x=%ed%a0%80", "/v1/messages/count_tokens?x=%c0%af", "/v1/messages?x=%e2%82");

  @Test
  void aQueryWhoseEncodedBytesAreNotUtf8IsTheClientsErrorOnEveryPath() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      for (String target : BAD) {
        String answer = answer(h, target);
        assertThat(answer).as(target + "\n" + answer).startsWith("HTTP/1.1 400");
        JsonNode error = RawHttp.body(answer);
        assertThat(error).as(answer).isNotNull();
        assertThat(error.path("error").path("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.path("error").path("message").asText()).contains("query");
        assertThat(error.path("request_id").asText()).startsWith("lv_");
      }
      // UTF-8 percent-encoded still goes through: é, and a 4-byte character
      assertThat(answer(h, "/v1/messages/batches?after_id=%C3%A9")).startsWith("HTTP/1.1 200");
      assertThat(answer(h, "/v1/messages?beta=true&x=%F0%9F%98%80")).startsWith("HTTP/1.1 200");
    }
  }

  /** {@code target} asked as raw bytes: POST a small question to the messages paths, else GET. */
  private static String answer(Harness h, String target) throws Exception {
    String body = "{\"model\":\"chat\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    String method = target.startsWith("/v1/messages?") || target.startsWith("/v1/messages/count_tokens") ? "POST" : "GET";
    return RawHttp.exchange(h, RawHttp.ascii(method + " " + target + " HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        + "x-api-key: sk-ant-test\r\nauthorization: Bearer t\r\ncontent-type: application/json\r\n"
        + "anthropic-version: 2023-06-01\r\nconnection: close\r\n"
        + (method.equals("POST") ? "content-length: " + body.length() + "\r\n\r\n" + body : "\r\n")));
  }
}
