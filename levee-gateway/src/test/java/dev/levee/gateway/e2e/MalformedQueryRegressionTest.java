package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12 newcomer trial): a query string that is not a valid URI query ({@code
 * ?x=%ZZ}, {@code ?x=a|b}, …) was accepted by Jetty, then failed building the upstream URI: a 500
 * {@code api_error} with a stack trace in the log, on {@code /v1/messages}, {@code /v1/models} and
 * {@code /admin/route}; a raw non-ASCII byte was forwarded as U+FFFD. Both are now the client's 400
 * {@code invalid_request_error}, at the door.
 */
class MalformedQueryRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big]\nadmin:\n  token: t\n"
      + Harness.BASE_POLICY;

  private static final List<String> BAD = List.of("/v1/messages?x=%ZZ", "/v1/messages?x=%", "/v1/messages?x=a|b",
      "/v1/messages?x={}", "/v1/messages/count_tokens?x=a^b", "/v1/models?x=%ZZ", "/admin/route?alias=chat&task=%ZZ");

  @Test
  void aQueryThatIsNotAUriQueryIsTheClientsErrorAndTheGatewayGoesOn() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      for (String target : BAD) {
        expectRefused(h, target);
      }
      // newcomer trial 2: a raw non-ASCII byte (Latin-1 é) reached the upstream as U+FFFD
      String answer = RawHttp.exchange(h, RawHttp.ascii("GET /v1/models?x="), new byte[] {(byte) 0xe9},
          RawHttp.ascii(" HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: sk-ant-test\r\nconnection: close\r\n\r\n"));
      assertThat(answer).as(answer).startsWith("HTTP/1.1 400");
      assertThat(answer(h, "/v1/messages?beta=true&x=%41b")).startsWith("HTTP/1.1 200");
    }
  }

  private static void expectRefused(Harness h, String target) throws Exception {
    String answer = answer(h, target);
    assertThat(answer).as(answer).startsWith("HTTP/1.1 400");
    JsonNode error = RawHttp.body(answer);
    assertThat(error).as(answer).isNotNull();
    assertThat(error.path("error").path("type").asText()).isEqualTo("invalid_request_error");
    assertThat(error.path("error").path("message").asText()).contains("query");
    assertThat(error.path("request_id").asText()).startsWith("lv_");
  }

  /** {@code target} asked as raw bytes (no client would send such a query): POST a small question, or GET. */
  private static String answer(Harness h, String target) throws Exception {
    String body = "{\"model\":\"chat\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    String method = target.startsWith("/v1/messages") ? "POST" : "GET";
    return RawHttp.exchange(h, RawHttp.ascii(method + " " + target + " HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        + "x-api-key: sk-ant-test\r\nauthorization: Bearer t\r\ncontent-type: application/json\r\n"
        + "anthropic-version: 2023-06-01\r\nconnection: close\r\n"
        + (method.equals("POST") ? "content-length: " + body.length() + "\r\n\r\n" + body : "\r\n")));
  }
}
