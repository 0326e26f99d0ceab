package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (hostile-client session): a batch declared over {@code server.max-body} (taken up to
 * 256 MB) is read by the batch handler itself, not by the server's door; a client that closed its
 * connection partway through such an upload was answered 400 "could not read the request body:
 * Early EOF" (Java exception text) and logged {@code refused 400}, where the door's own reads record
 * a client that left as {@code 499 client_gone} and write nothing back ({@code
 * ClientGoneMidUploadRegressionTest}). The batch handler now does the same.
 */
class BatchClientGoneMidUploadRegressionTest {

  @Test
  void aClientLeavingMidBatchUploadIsRecordedAsGoneAndHearsNothing() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), BatchUploads.YAML, "max-body: 1KiB"); AccessLines access = new AccessLines();
        Socket socket = new Socket("127.0.0.1", h.gateway.baseUrl().getPort())) {
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write(BatchUploads.startedUpload(2000));
      out.flush();
      assertThat(h.awaitMetrics("levee_requests_in_flight 1.0")).contains("levee_requests_in_flight 1.0");
      socket.shutdownOutput(); // FIN, as a close sends; the socket stays open to see what comes back

      assertThat(new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1))
          .as("nothing written back to a client that left").isEmpty();
      List<String> lines = access.awaitContaining(" POST /v1/messages/batches status=");
      assertThat(lines).singleElement().asString().contains(" status=499 ").contains("client_gone");
    }
  }
}
