package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Regression (hostile-client trial, session 22): a batch declared over {@code server.max-body} is
 * read by the batch handler, up to 256 MB, and it read at no minimum rate, so a client that sent a
 * byte now and then held its connection (and its virtual thread) for as long as it liked — the
 * slow upload the door's {@code min-body-rate} refuses everywhere else. The handler now reads it
 * under the same rule: 408 {@code timeout_error}, the connection closed, within the header allowance
 * plus what the bytes received earn. (The socket's 20 s read timeout is what a hang on the old code
 * runs into.)
 */
class SlowBatchUploadRegressionTest {

  private static final String YAML = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY + """
      queue:
        folder: ${QUEUE}
        secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
      """;

  @Test
  void aBatchOverMaxBodyUploadedTooSlowlyGets408AndTheConnectionCloses() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), YAML,
            "max-body: 1KiB, header-timeout: 300ms, min-body-rate: 1KiB");
        Socket socket = new Socket("127.0.0.1", h.gateway.baseUrl().getPort())) {
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write(("POST /v1/messages/batches HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
          + "x-api-key: sk-test-client-key\r\nanthropic-version: 2023-06-01\r\ncontent-length: 2000\r\n\r\n"
          + "{\"requests\":[").getBytes(StandardCharsets.US_ASCII));
      out.flush(); // and nothing more: the client stalls with 1,987 bytes still to send

      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      assertThat(answer).startsWith("HTTP/1.1 408").contains("\"timeout_error\"")
          .containsIgnoringCase("connection: close").doesNotContain("Exception");
    }
  }
}
