package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Regression (review of the early answers on the head, {@code ExpectContinueRefusedOnHeadersRegressionTest}):
 * a request its headers alone refuse was answered before its body was read whether or not the
 * client waited for {@code 100 Continue}; a client that did not, still uploading a body larger than
 * the sockets' buffers, had its connection closed under it (the body's rest was not there to read
 * past), its upload failed with a broken pipe or a reset, and a client that writes its whole request
 * before it reads — Java's HttpClient — never saw its 400 (2 runs in 10 failed: "header parser
 * received no bytes"). Before, the door read the body, and the 400 came after it, on a connection
 * kept. Only a client that sent {@code expect: 100-continue} is answered before its body.
 */
class RefusedOnHeadersMidUploadRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY;
  /** Larger than loopback's socket buffers together, within server.max-body (32 MiB). */
  private static final int BODY_BYTES = 24 << 20;

  @Test
  void aClientThatWritesItsWholeBodyBeforeReadingHearsItsRefusal() throws Exception {
    try (Harness h = Harness.start(CONFIG); Socket socket = new Socket("127.0.0.1", h.gateway.baseUrl().getPort())) {
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      // no anthropic-version: refused on the headers alone; no expect: 100-continue, so the body follows at once
      out.write(("POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
          + "x-api-key: sk-test-client-key\r\ncontent-length: " + BODY_BYTES + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      byte[] chunk = new byte[64 << 10];
      Arrays.fill(chunk, (byte) ' ');
      for (int sent = 0; sent < BODY_BYTES; sent += chunk.length) {
        out.write(chunk); // before: a broken pipe or a reset once the server had answered and closed
      }
      out.flush();

      InputStream in = socket.getInputStream();
      String head = RawHttp.head(in);
      assertThat(head).as(head).startsWith("HTTP/1.1 400");
      assertThat(head.toLowerCase(Locale.ROOT)).as("the body was read: the connection is kept")
          .doesNotContain("connection: close");
      assertThat(new String(in.readNBytes(RawHttp.contentLength(head)), StandardCharsets.UTF_8))
          .contains("anthropic-version: header is required");

      out.write("GET /health/live HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String next = RawHttp.head(in);
      assertThat(next).as(next).startsWith("HTTP/1.1 200");
    }
  }
}
