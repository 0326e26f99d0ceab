package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (tester, one long-lived gateway): a client that sent its head with {@code
 * content-length: 100} and 4 bytes of body, then reset or closed its connection, was written to
 * the access log as {@code status=400 outcome=refused invalid_request_error} and counted as a
 * refused 4xx: the server's door read the cut body as an unreadable one. It is now recorded as a
 * client that left ({@code 499}, {@code client_gone}), as a client leaving mid-stream is, and
 * nothing is written back to it; a body that is truly malformed, or too large, keeps its refusal.
 */
class ClientGoneMidUploadRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY;
  private static final String HEAD = "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n"
      + "x-api-key: sk-test-client-key\r\nanthropic-version: 2023-06-01\r\n";
  private static final String GONE = "levee_requests_total{endpoint=\"messages\",outcome=\"client_gone\",tier=\"-\"} 1.0";

  @ParameterizedTest(name = "the client {0}s")
  @ValueSource(strings = {"reset", "close"})
  void aClientLeavingMidUploadIsRecordedAsGoneAndHearsNothing(String how) throws Exception {
    try (Harness h = Harness.start(CONFIG); AccessLines access = new AccessLines();
        Socket socket = new Socket("127.0.0.1", h.gateway.baseUrl().getPort())) {
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write((HEAD + "content-length: 100\r\n\r\n{\"mo").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      // the server reads the body (admitted, in flight) before the client leaves: a reset never races the head
      assertThat(h.awaitMetrics("levee_requests_in_flight 1.0")).contains("levee_requests_in_flight 1.0");
      if (how.equals("reset")) {
        socket.setSoLinger(true, 0);
        socket.close(); // RST
      } else {
        socket.shutdownOutput(); // FIN, as a close sends; the socket stays open to see what comes back
        assertThat(new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1))
            .as("nothing written back to a client that left").isEmpty();
      }

      List<String> lines = access.awaitContaining(" POST /v1/messages status=");
      assertThat(lines).as("one access line: the client left").singleElement().asString()
          .contains(" POST /v1/messages status=499 ").endsWith(" outcome=client_gone");
      String metrics = h.awaitMetrics(GONE);
      assertThat(metrics).as("recorded as a client that left").contains(GONE);
      assertThat(metrics).as("not as a refusal").doesNotContain("outcome=\"refused\"");
      assertThat(metrics).contains("levee_requests_in_flight 0.0");
    }
  }

  @Test
  void aBodyThatIsMalformedOrTooLargeKeepsItsRefusal() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), CONFIG, "max-body: 1KiB")) {
      try (Socket socket = new Socket("127.0.0.1", h.gateway.baseUrl().getPort())) {
        socket.setSoTimeout(20_000);
        OutputStream out = socket.getOutputStream();
        out.write((HEAD + "transfer-encoding: chunked\r\n\r\n2\r\n{}\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        // the server is reading the body when the bad chunk comes: the door reads it, not Jetty's parser before it
        assertThat(h.awaitMetrics("levee_requests_in_flight 1.0")).contains("levee_requests_in_flight 1.0");
        out.write("zz\r\n".getBytes(StandardCharsets.US_ASCII)); // no chunk size
        out.flush();
        String malformed = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        assertThat(malformed).startsWith("HTTP/1.1 400").contains("\"invalid_request_error\"");
      }
      String large = RawHttp.exchange(h, RawHttp.ascii(HEAD + "content-length: 2000\r\nconnection: close\r\n\r\n"
          + "x".repeat(2000)));
      assertThat(large).startsWith("HTTP/1.1 413").contains("\"request_too_large\"");

      String refused = "levee_requests_total{endpoint=\"messages\",outcome=\"refused\",tier=\"-\"} 2.0";
      String metrics = h.awaitMetrics(refused);
      assertThat(metrics).as("the malformed body and the large one, refused").contains(refused).doesNotContain("outcome=\"client_gone\"");
    }
  }
}
