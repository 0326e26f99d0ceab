package dev.levee.anthropic.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * Found while an upstream sent 32 MiB in 4 KiB chunks (EndlessUpstreamEventRegressionTest, now
 * and then): when the CR closing a chunk's data was the last byte of a full connection buffer and
 * its LF came in the next read, the line read back as {@code "\r"}, not empty, and a well-formed
 * body failed as "malformed chunk" (a cut stream, retried or recovered). The CR is now recognised
 * across the two reads.
 */
class ChunkCrlfAcrossReadsRegressionTest {

  @Test
  void aChunksCrlfSplitAtTheEndOfAFullBufferIsStillItsEnd() throws Exception {
    String head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    int data = PlainHttp1.SMALL_BUFFER - head.length() - 1; // the chunk's data, then its CR as the buffer's last byte
    while (head.length() + Integer.toHexString(data).length() + 2 + data + 1 > PlainHttp1.SMALL_BUFFER) {
      data--;
    }
    String first = head + Integer.toHexString(data) + "\r\n" + "x".repeat(data) + "\r";
    assertThat(first).hasSize(PlainHttp1.SMALL_BUFFER);
    CountDownLatch rest = new CountDownLatch(1);
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        PlainHttp1 client = new PlainHttp1(Duration.ofSeconds(2))) {
      Thread.ofVirtual().start(() -> {
        try (Socket s = server.accept()) {
          BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
          while (!in.readLine().isEmpty()) {
            // the request's head; its body ("{}") is left unread
          }
          OutputStream out = s.getOutputStream();
          out.write(first.getBytes(StandardCharsets.ISO_8859_1)); // one buffer's worth, ending in the CR
          out.flush();
          rest.await();
          out.write("\n0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
          out.flush();
          in.read(); // until the client is done
        } catch (Exception ignored) {
          // the client went away
        }
      });
      URI uri = URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1/messages");
      try (UpstreamResponse response = client.send(new UpstreamRequest(uri, "POST", Map.of("x-api-key", List.of("k")),
          "{}".getBytes(StandardCharsets.UTF_8)), Duration.ofSeconds(5), new Cancellation())) {
        InputStream body = response.body();
        assertThat(body.readNBytes(data)).hasSize(data);
        rest.countDown();
        assertThat(body.readAllBytes()).as("the body's end, not 'malformed chunk'").isEmpty();
      }
    }
  }
}
