package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 8): a client that left before its answer's head was sent got
 * its 499 access line, and a second one under a new request id: status 500, {@code
 * outcome=refused api_error}, counted in {@code levee_requests_total{outcome="refused"}} and as a 5xx
 * in {@code levee_request_duration_seconds}. Jetty's error handler answered the handler's abort as
 * a server error, so every client disconnect read as a server error on a 5xx SLO. The abort now
 * says the client went away, and the error handler neither answers nor counts it.
 */
class ClientGoneIsNotARefusalRegressionTest {

  @Test
  void aClientLeavingBeforeTheHeadIsOneClientGoneAndNoRefusal() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(),
        "models:\n  slow:\n    chain: [emu/emu-slow-ttft-5000]\n" + Harness.BASE_POLICY)) {
      for (boolean stream : new boolean[] {true, false}) {
        try (Socket socket = new Socket("127.0.0.1", h.gateway.baseUrl().getPort())) {
          String body = "{\"model\":\"slow\",\"stream\":" + stream
              + ",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"leave " + stream + "\"}]}";
          OutputStream out = socket.getOutputStream();
          out.write(("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              + "x-api-key: sk-test-client-key\r\nanthropic-version: 2023-06-01\r\nContent-Length: "
              + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
          out.flush();
          int calls = stream ? 1 : 2;
          h.emulator.awaitLog(log -> log.size() >= calls, Duration.ofSeconds(10)); // waiting for its head upstream
        } // the client leaves before anything was sent back
      }

      String gone = "levee_requests_total{endpoint=\"messages\",outcome=\"client_gone\",tier=\"T0\"} 2.0";
      String metrics = h.awaitMetrics(gone);
      assertThat(metrics).as("both requests recorded as a client that left").contains(gone);
      assertThat(metrics).as("no second record of either as refused").doesNotContain("outcome=\"refused\"");
      assertThat(metrics).as("no server error counted").doesNotContain("status_class=\"5xx\"");
    }
  }
}
