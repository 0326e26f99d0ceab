package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 7): an HTTP/2 client speaking prior knowledge ({@code curl
 * --http2-prior-knowledge}) got Jetty's bare 426 with an empty body, no request id, and no trace
 * in the access log or metrics: Jetty's error handler writes a body only for GET, POST and HEAD,
 * and the preface's method is {@code PRI}. It now gets an Anthropic-shaped error saying the
 * gateway speaks HTTP/1.1 only, named and counted like every refusal at the door.
 */
class H2cPriorKnowledgeRegressionTest {

  @Test
  void anHttp2PrefaceGetsAnAnthropicShaped426SayingHttp11Only() throws Exception {
    try (Harness h = Harness.start(Harness.BASE_POLICY)) {
      String answer = RawHttp.exchange(h,
          RawHttp.ascii("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), // the client preface
          new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0}); // an empty SETTINGS frame; the answer: until it closes

      assertThat(answer).startsWith("HTTP/1.1 426");
      JsonNode body = RawHttp.body(answer);
      assertThat(body).as(answer).isNotNull();
      assertThat(body.path("type").asText()).isEqualTo("error");
      assertThat(body.path("error").path("type").asText()).isEqualTo("invalid_request_error");
      assertThat(body.path("error").path("message").asText()).contains("HTTP/1.1 only");
      assertThat(body.path("request_id").asText()).startsWith("lv_");
      assertThat(answer).containsIgnoringCase("x-levee-request-id: " + body.path("request_id").asText());
      String counted = "levee_requests_total{endpoint=\"other\",outcome=\"refused\",tier=\"-\"} 1.0";
      assertThat(h.awaitMetrics(counted)).contains(counted);
    }
  }
}
