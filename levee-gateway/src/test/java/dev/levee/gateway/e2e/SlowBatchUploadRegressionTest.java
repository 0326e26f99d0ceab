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

  @Test
  void aBatchOverMaxBodyUploadedTooSlowlyGets408AndTheConnectionCloses() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), BatchUploads.YAML,
            "max-body: 1KiB, header-timeout: 300ms, min-body-rate: 1KiB");
        Socket socket = new Socket("127.0.0.1", h.gateway.baseUrl().getPort())) {
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write(BatchUploads.startedUpload(2000));
      out.flush(); // and nothing more: the client stalls with 1,987 bytes still to send

      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      assertThat(answer).startsWith("HTTP/1.1 408").contains("\"timeout_error\"")
          .containsIgnoringCase("connection: close").doesNotContain("Exception");
    }
  }
}
