package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 8 newcomer trial): a request line with no HTTP version ({@code HELLO
 * WORLD}, read as HTTP/0.9) got Jetty's 505 as {@code api_error}: a server error for a client's
 * garbage, counted on 5xx SLOs and retried by SDKs. It is now a 400 {@code invalid_request_error}.
 */
class RequestLineWithoutVersionRegressionTest {

  @Test
  void aRequestLineWithoutAVersionIsTheClientsError() throws Exception {
    try (Harness h = Harness.start(Harness.BASE_POLICY)) {
      String answer = RawHttp.exchange(h, RawHttp.ascii("HELLO WORLD\r\n\r\n")); // until it closes

      assertThat(answer).startsWith("HTTP/1.1 400");
      JsonNode body = RawHttp.body(answer);
      assertThat(body).as(answer).isNotNull();
      assertThat(body.path("error").path("type").asText()).isEqualTo("invalid_request_error");
      assertThat(body.path("request_id").asText()).startsWith("lv_");
    }
  }
}
