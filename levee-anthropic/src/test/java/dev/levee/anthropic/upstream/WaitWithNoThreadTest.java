package dev.levee.anthropic.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.ref.WeakReference;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 11: a body waited on with {@link UpstreamResponse#whenReadable} holds no thread until its
 * next bytes arrive; then, or when the response is closed meanwhile (a watchdog's limit, a client
 * leaving), the wait ends, and the connection reads on in blocking mode.
 */
class WaitWithNoThreadTest {

  private static final String HEAD = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
      + "Transfer-Encoding: chunked\r\n\r\n";
  private static final String EVENT = "event: ping\ndata: {\"type\": \"ping\"}\n\n";

  private final PlainHttp1 client = new PlainHttp1(Duration.ofSeconds(2));
  private final CountDownLatch go = new CountDownLatch(1);
  private final CountDownLatch clientClosed = new CountDownLatch(1);
  private ServerSocket server;

  @AfterEach
  void close() throws IOException {
    go.countDown();
    client.close();
    server.close();
  }

  /** One connection: reads the request, writes the head and one event, waits for {@link #go}, writes {@code rest}. */
  private URI serve(String rest) throws IOException {
    return serve("", rest);
  }

  /** As {@link #serve(String)}, with {@code more} right after the first event. */
  private URI serve(String more, String rest) throws IOException {
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
        out.write((HEAD + chunk(EVENT) + more).getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        go.await();
        out.write(rest.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        if (s.getInputStream().read() < 0) {
          clientClosed.countDown();
        }
      } catch (Exception ignored) {
        clientClosed.countDown(); // the client closed mid-write
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

  private static String readEvent(UpstreamResponse response) throws IOException {
    return new String(response.body().readNBytes(EVENT.length()), StandardCharsets.ISO_8859_1);
  }

  @Test
  void theWaitEndsWhenBytesArriveAndTheBodyReadsOnInBlockingMode() throws Exception {
    try (UpstreamResponse response = send(serve(chunk(EVENT) + "0\r\n\r\n"))) {
      assertThat(readEvent(response)).isEqualTo(EVENT);
      CountDownLatch ready = new CountDownLatch(1);

      assertThat(response.whenReadable(ready::countDown)).as("nothing at hand: it waits").isTrue();
      assertThat(ready.getCount()).as("no bytes yet, and this thread went on").isEqualTo(1);

      go.countDown();
      assertThat(ready.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(readEvent(response)).isEqualTo(EVENT);
      assertThat(response.body().read()).isEqualTo(-1);
    }
  }

  /**
   * Issue 11: the body kept the last thread that read it, to tell at close whether the closing
   * thread read it last; a stream that waits with no thread has ended that thread, and keeping it
   * kept its task too (the request's stages and all they captured) for every waiting stream.
   */
  @Test
  void aBodyKeepsNoReferenceToTheEndedThreadThatReadItLast() throws Exception {
    try (UpstreamResponse response = send(serve(chunk(EVENT) + "0\r\n\r\n"))) {
      String[] read = new String[1];
      Thread reader = Thread.ofVirtual().start(() -> {
        try {
          read[0] = readEvent(response);
        } catch (IOException e) {
          throw new AssertionError(e);
        }
      });
      reader.join();
      assertThat(read[0]).isEqualTo(EVENT);
      WeakReference<Thread> ended = new WeakReference<>(reader);
      reader = null;

      for (int i = 0; i < 10 && ended.get() != null; i++) {
        System.gc(); // a full collection with the JDK's default G1: the body is all that could still hold it
      }

      assertThat(ended.get()).as("the ended reader, held by nothing").isNull();
      go.countDown();
      assertThat(readEvent(response)).isEqualTo(EVENT);
    }
  }

  @Test
  void nothingWaitsWhenBytesAreAlreadyAtHand() throws Exception {
    try (UpstreamResponse response = send(serve(""))) {
      response.body().read(); // the rest of the event is buffered

      assertThat(response.whenReadable(() -> { throw new AssertionError("never runs"); })).isFalse();
    }
  }

  @Test
  void aBodyWhoseLastChunkIsBufferedDoesNotWaitForBytesThatWillNotCome() throws Exception {
    try (UpstreamResponse response = send(serve("0\r\n\r\n", ""))) { // the upstream then keeps the connection, silent
      assertThat(readEvent(response)).isEqualTo(EVENT);

      assertThat(response.whenReadable(() -> { throw new AssertionError("never runs"); })).isFalse();
      assertThat(response.body().read()).isEqualTo(-1);
    }
  }

  /** Issue 11: a stream that waited with no thread kept the large buffer a burst had given it (OOM at 9,900 streams). */
  @Test
  void aWaitAfterABurstHoldsOnlyTheSmallBuffer() throws Exception {
    String burst = "data: " + "x".repeat(40_000) + "\n\n";
    try (UpstreamResponse response = send(serve(chunk(burst), chunk(EVENT)))) {
      assertThat(readEvent(response)).isEqualTo(EVENT);
      assertThat(new String(response.body().readNBytes(burst.length()), StandardCharsets.ISO_8859_1)).isEqualTo(burst);
      assertThat(PlainHttp1.readBufferCapacity(response.body())).as("bytes came faster than they were read")
          .isEqualTo(PlainHttp1.LARGE_BUFFER);
      CountDownLatch ready = new CountDownLatch(1);

      assertThat(response.whenReadable(ready::countDown)).isTrue();

      assertThat(PlainHttp1.readBufferCapacity(response.body())).as("while it waits").isEqualTo(PlainHttp1.SMALL_BUFFER);
      go.countDown();
      assertThat(ready.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(readEvent(response)).isEqualTo(EVENT);
    }
  }

  @Test
  void closingTheResponseEndsTheWaitAndClosesTheConnection() throws Exception {
    UpstreamResponse response = send(serve(chunk(EVENT)));
    assertThat(readEvent(response)).isEqualTo(EVENT);
    CountDownLatch ready = new CountDownLatch(1);
    assertThat(response.whenReadable(ready::countDown)).isTrue();

    response.close(); // as the watchdog's limit or a client leaving closes it: no select event follows

    assertThat(ready.await(5, TimeUnit.SECONDS)).as("the wait ended").isTrue();
    assertThatThrownBy(() -> response.body().read()).isInstanceOf(IOException.class);
    go.countDown();
    assertThat(clientClosed.await(5, TimeUnit.SECONDS)).as("the upstream saw the connection close").isTrue();
  }
}
