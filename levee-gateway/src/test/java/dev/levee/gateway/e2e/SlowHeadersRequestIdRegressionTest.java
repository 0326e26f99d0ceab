package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.emulator.EmulatorOptions;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 7): the 408 of the header deadline (a client whose request headers never
 * complete, slowloris) had a body without {@code request_id}, no request id header, and left no
 * access-log line or {@code levee_requests_total} count, unlike every other refusal at the door.
 * It now carries an id in its body, {@code x-levee-request-id} and {@code request-id}, and is
 * recorded as a refusal (path {@code -}: the request line never reached a handler).
 */
class SlowHeadersRequestIdRegressionTest {

  @Test
  void headersSentTooSlowlyGetA408WithARequestIdAndAreCounted() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), Harness.BASE_POLICY, "header-timeout: 300ms")) {
      String answer = RawHttp.exchange(h, RawHttp.ascii("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\n"));

      assertThat(answer).startsWith("HTTP/1.1 408");
      JsonNode body = RawHttp.body(answer);
      assertThat(body).as(answer).isNotNull();
      assertThat(body.path("error").path("type").asText()).isEqualTo("timeout_error");
      String id = body.path("request_id").asText();
      assertThat(id).as(answer).startsWith("lv_");
      assertThat(header(answer, "x-levee-request-id")).isEqualTo(id);
      assertThat(header(answer, "request-id")).isEqualTo(id);
      // the 408 counted once, as a 4xx refusal at the door (a loaded full run also counted a 500 on
      // Jetty's /badRequest as the connection ended: HeaderTimeoutCountedOnceRegressionTest)
      String counted = "levee_request_duration_seconds_count{alias=\"-\",endpoint=\"other\",feature=\"-\","
          + "status_class=\"4xx\",tier=\"-\"} 1";
      assertThat(h.awaitMetrics(counted)).contains(counted)
          .contains("levee_requests_total{endpoint=\"other\",outcome=\"refused\",tier=\"-\"} 1.0");
    }
  }

  private static String header(String answer, String name) {
    Matcher m = Pattern.compile("(?im)^" + Pattern.quote(name) + ": *([^\r\n]*)").matcher(answer);
    return m.find() ? m.group(1) : null;
  }
}
