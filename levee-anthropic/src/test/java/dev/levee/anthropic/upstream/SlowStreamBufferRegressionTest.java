package dev.levee.anthropic.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, ten thousand slow streams: every upstream connection held a 16 KiB read buffer for
 * the whole life of its stream, though a slow stream waits in a read nearly all the time (160 MB
 * of a 256 MB heap at 10,000 streams). A connection now waits on a small buffer and takes the
 * large one only while bytes arrive faster than they are read.
 */
class SlowStreamBufferRegressionTest {

  private final PlainHttp1 client = new PlainHttp1(Duration.ofSeconds(2));
  private ServerSocket server;

  @AfterEach
  void close() throws IOException {
    client.close();
    if (server != null) {
      server.close();
    }
  }

  /** One connection: reads the request, writes {@code first}, waits for {@code go}, writes {@code rest}. */
  private URI serve(String first, CountDownLatch go, String rest) throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().start(() -> {
      try (Socket s = server.accept()) {
        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
        String line;
        while ((line = in.readLine()) != null && !line.isEmpty()) {
          // the request's head; its body is "{}"
        }
        in.skip(2);
        OutputStream out = s.getOutputStream();
        out.write(first.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        go.await();
        out.write(rest.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        s.getInputStream().read(); // until the client closes
      } catch (Exception ignored) {
        // the client went away
      }
    });
    return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1/messages");
  }

  private UpstreamResponse send(URI uri) throws Exception {
    return client.send(new UpstreamRequest(uri, "POST", Map.of("x-api-key", List.of("k")), "{}".getBytes()),
        Duration.ofSeconds(5), new Cancellation());
  }

  private static String chunk(String data) {
    return Integer.toHexString(data.length()) + "\r\n" + data + "\r\n";
  }

  @Test
  void aStreamWaitingForItsNextEventHoldsOnlyTheSmallBuffer() throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    String event = "event: ping\ndata: {\"type\": \"ping\"}\n\n";
    URI uri = serve("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        + chunk(event), go, chunk(event) + "0\r\n\r\n");
    try (UpstreamResponse response = send(uri)) {
      InputStream body = response.body();
      assertThat(new String(body.readNBytes(event.length()), StandardCharsets.UTF_8)).isEqualTo(event);
      assertThat(PlainHttp1.readBufferCapacity(body)).isEqualTo(PlainHttp1.SMALL_BUFFER).isLessThan(4096);
      go.countDown();
      assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(event);
    }
  }

  @Test
  void aBurstTakesTheLargeBufferAndTheWaitAfterItTheSmallOneAgain() throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    String burst = "x".repeat(40_000);
    URI uri = serve("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        + chunk(burst), go, chunk("tail") + "0\r\n\r\n");
    try (UpstreamResponse response = send(uri)) {
      InputStream body = response.body();
      assertThat(new String(body.readNBytes(burst.length()), StandardCharsets.US_ASCII)).isEqualTo(burst);
      assertThat(PlainHttp1.readBufferCapacity(body)).as("bytes came faster than they were read")
          .isEqualTo(PlainHttp1.LARGE_BUFFER);
      Thread reader = Thread.ofVirtual().start(() -> {
        try {
          assertThat(new String(body.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("tail");
        } catch (IOException e) {
          throw new AssertionError(e);
        }
      });
      while (reader.getState() != Thread.State.WAITING) { // parked in its read: the server sends nothing before go
        Thread.onSpinWait();
      }
      go.countDown();
      reader.join();
      assertThat(PlainHttp1.readBufferCapacity(body)).isEqualTo(PlainHttp1.SMALL_BUFFER);
    }
  }

  /** Issue 11: a wait that began with a few bytes unread (half a chunk header) kept the large buffer. */
  @Test
  void aWaitWithPartOfAChunkHeaderUnreadHoldsOnlyTheSmallBuffer() throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    String burst = "x".repeat(40_000);
    URI uri = serve("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        + chunk(burst) + "4", go, "\r\ntail\r\n0\r\n\r\n");
    try (UpstreamResponse response = send(uri)) {
      InputStream body = response.body();
      assertThat(new String(body.readNBytes(burst.length()), StandardCharsets.US_ASCII)).isEqualTo(burst);
      assertThat(PlainHttp1.readBufferCapacity(body)).isEqualTo(PlainHttp1.LARGE_BUFFER);
      Thread reader = Thread.ofVirtual().start(() -> {
        try {
          assertThat(new String(body.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("tail");
        } catch (IOException e) {
          throw new AssertionError(e);
        }
      });
      while (reader.getState() != Thread.State.WAITING) { // parked mid chunk header: the server sends nothing before go
        Thread.onSpinWait();
      }
      assertThat(PlainHttp1.readBufferCapacity(body)).as("while it waits").isEqualTo(PlainHttp1.SMALL_BUFFER);
      go.countDown();
      reader.join();
    }
  }
}
