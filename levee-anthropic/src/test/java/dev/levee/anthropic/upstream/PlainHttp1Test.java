package dev.levee.anthropic.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The plain HTTP/1.1 upstream client against a scripted loopback server. */
class PlainHttp1Test {

  /** Serves each connection with a script: it reads requests and writes what it is told. */
  @FunctionalInterface
  interface Script {
    void serve(BufferedReader in, OutputStream out, Socket socket) throws Exception;
  }

  private final PlainHttp1 client = new PlainHttp1(Duration.ofSeconds(2));
  private ServerSocket server;
  private final AtomicInteger connections = new AtomicInteger();

  private URI serve(Script script) throws IOException {
    server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
    Thread.ofVirtual().start(() -> {
      while (!server.isClosed()) {
        try {
          Socket s = server.accept();
          connections.incrementAndGet();
          Thread.ofVirtual().start(() -> {
            try (s) {
              script.serve(new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1)),
                  s.getOutputStream(), s);
            } catch (Exception ignored) {
              // the client went away
            }
          });
        } catch (IOException e) {
          return;
        }
      }
    });
    return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1/messages");
  }

  @AfterEach
  void close() throws IOException {
    client.close();
    if (server != null) {
      server.close();
    }
  }

  private static int readRequest(BufferedReader in) throws IOException {
    String line;
    int length = 0;
    boolean any = false;
    while ((line = in.readLine()) != null && !line.isEmpty()) {
      any = true;
      if (line.toLowerCase().startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    if (!any) {
      return -1;
    }
    in.skip(length);
    return length;
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  private UpstreamResponse send(URI uri, Duration timeout, Cancellation cancellation) throws Exception {
    return client.send(new UpstreamRequest(uri, "POST", Map.of("x-api-key", List.of("k")), "{}".getBytes()),
        timeout, cancellation);
  }

  private static String body(UpstreamResponse response) throws IOException {
    try (response) {
      return new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void aKeptAliveConnectionServesTheNextCall() throws Exception {
    URI uri = serve((in, out, s) -> {
      while (readRequest(in) >= 0) {
        write(out, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
      }
    });
    for (int i = 0; i < 3; i++) {
      UpstreamResponse response = send(uri, Duration.ofSeconds(5), new Cancellation());
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.header("content-type")).isEqualTo("application/json");
      assertThat(body(response)).isEqualTo("{}");
    }
    assertThat(connections).hasValue(1);
  }

  @Test
  void headerNamesAreLowerCasedAndNamesAndValuesTrimmedWhereverTheLineEnds() throws Exception {
    String filler = "x".repeat(600); // past the first read's buffer: the later lines arrive split
    URI uri = serve((in, out, s) -> {
      readRequest(in);
      write(out, "HTTP/1.1 200 OK\r\nContent-Type:  application/json \r\nX-Custom-Thing:a\r\n"
          + "Set-Cookie: one\r\nset-cookie: two\r\nX-Filler: " + filler + "\r\n");
      write(out, "Request-Id: req_");
      write(out, "1\r\nX-Late : late value\r\nContent-Length: 2\r\n\r\n{}");
    });
    UpstreamResponse response = send(uri, Duration.ofSeconds(5), new Cancellation());
    assertThat(response.headers()).containsOnlyKeys("content-type", "x-custom-thing", "set-cookie", "x-filler",
        "request-id", "x-late", "content-length");
    assertThat(response.headers().get("set-cookie")).containsExactly("one", "two");
    assertThat(response.header("Content-Type")).isEqualTo("application/json");
    assertThat(response.header("x-custom-thing")).isEqualTo("a");
    assertThat(response.header("x-filler")).isEqualTo(filler);
    assertThat(response.header("request-id")).isEqualTo("req_1");
    assertThat(response.header("x-late")).isEqualTo("late value");
    assertThat(body(response)).isEqualTo("{}");
  }

  @Test
  void aHeaderWithoutANameIsMalformed() throws Exception {
    URI uri = serve((in, out, s) -> {
      readRequest(in);
      write(out, "HTTP/1.1 200 OK\r\n: no name\r\nContent-Length: 2\r\n\r\n{}");
    });
    assertThatThrownBy(() -> send(uri, Duration.ofSeconds(5), new Cancellation()))
        .isInstanceOf(IOException.class).hasMessage("malformed upstream header");
  }

  @Test
  void chunksAreDecodedAndAvailableNeverWaits() throws Exception {
    CountDownLatch more = new CountDownLatch(1);
    URI uri = serve((in, out, s) -> {
      while (readRequest(in) >= 0) {
        write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
        more.await();
        write(out, "6\r\n world\r\n0\r\n\r\n");
      }
    });
    UpstreamResponse response = send(uri, Duration.ofSeconds(5), new Cancellation());
    InputStream body = response.body();
    byte[] first = new byte[5];
    assertThat(body.readNBytes(first, 0, 5)).isEqualTo(5);
    assertThat(new String(first, StandardCharsets.US_ASCII)).isEqualTo("hello");
    assertThat(body.available()).as("nothing more has arrived").isZero();
    more.countDown();
    assertThat(new String(body.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo(" world");
    response.close();

    more.countDown();
    assertThat(body(send(uri, Duration.ofSeconds(5), new Cancellation()))).isEqualTo("hello world");
    assertThat(connections).as("a finished chunked body keeps its connection").hasValue(1);
  }

  @Test
  void closingAnUnfinishedBodyClosesTheConnection() throws Exception {
    BlockingQueue<Integer> serverRead = new LinkedBlockingQueue<>();
    URI uri = serve((in, out, s) -> {
      readRequest(in);
      write(out, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789");
      serverRead.add(s.getInputStream().read()); // -1 once the client closed
    });
    UpstreamResponse response = send(uri, Duration.ofSeconds(5), new Cancellation());
    assertThat(response.body().read(new byte[10])).isEqualTo(10);
    response.close();
    assertThat(serverRead.poll(5, TimeUnit.SECONDS)).isEqualTo(-1);
  }

  @Test
  void noHeadersWithinTheTimeoutIsATimeout() throws Exception {
    URI uri = serve((in, out, s) -> {
      readRequest(in);
      in.read(); // never answers
    });
    assertThatThrownBy(() -> send(uri, Duration.ofMillis(100), new Cancellation()))
        .isInstanceOf(HttpTimeoutException.class);
  }

  @Test
  void aDeadlineOnAKeptAliveConnectionIsATimeoutNotARetry() throws Exception {
    URI uri = serve((in, out, s) -> {
      readRequest(in);
      write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
      readRequest(in);
      in.read(); // never answers the second
    });
    assertThat(body(send(uri, Duration.ofSeconds(5), new Cancellation()))).isEqualTo("{}");

    assertThatThrownBy(() -> send(uri, Duration.ofMillis(100), new Cancellation()))
        .isInstanceOf(HttpTimeoutException.class);
    assertThat(connections).hasValue(1);
  }

  @Test
  void aConnectionTheServerClosedWhileIdleIsReplacedOnce() throws Exception {
    URI uri = serve((in, out, s) -> {
      readRequest(in);
      write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); // then closes, keep-alive or not
    });
    assertThat(body(send(uri, Duration.ofSeconds(5), new Cancellation()))).isEqualTo("ok");
    assertThat(body(send(uri, Duration.ofSeconds(5), new Cancellation()))).isEqualTo("ok");
    assertThat(connections).hasValue(2);
  }

  /**
   * Regression (newcomer trial, session 5): after a kept-alive connection failed before any byte
   * of the answer, the client took the next pooled one, and the next, so one request could reach
   * the server once per idle connection, none of it seen by the retry policy or the budget. It is
   * now sent once more, on a fresh connection.
   */
  @Test
  void aRequestFailedOnAStaleConnectionIsSentOnceMoreOnAFreshOneNotOnEveryPooledOne() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    URI uri = serve((in, out, s) -> {
      readRequest(in);
      requests.incrementAndGet();
      write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      if (readRequest(in) >= 0) {
        requests.incrementAndGet(); // read, then the connection dies unanswered
      }
    });
    UpstreamResponse first = send(uri, Duration.ofSeconds(5), new Cancellation());
    UpstreamResponse second = send(uri, Duration.ofSeconds(5), new Cancellation()); // the first is still open
    assertThat(body(first)).isEqualTo("ok");
    assertThat(body(second)).isEqualTo("ok");
    assertThat(client.idleCount("127.0.0.1:" + uri.getPort())).isEqualTo(2);
    requests.set(0);

    assertThat(body(send(uri, Duration.ofSeconds(5), new Cancellation()))).isEqualTo("ok");
    assertThat(requests).as("one stale connection, then a fresh one").hasValue(2);
    assertThat(connections).hasValue(3);
  }

  /**
   * Regression (newcomer trial, session 20): a reset after the request was written on a kept-alive
   * connection was taken for a connection the server had closed while idle, and the request sent
   * once more unseen by the retry policy: the server got it twice. Only the connection's end before
   * any byte of the answer (or a failed write) is a stale connection; a reset is the call's failure.
   */
  @Test
  void aResetAfterTheRequestOnAKeptAliveConnectionIsTheCallsFailureNotASecondSend() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    URI uri = serve((in, out, s) -> {
      readRequest(in);
      requests.incrementAndGet();
      write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      if (readRequest(in) >= 0) {
        requests.incrementAndGet();
        s.setSoLinger(true, 0); // read, then reset (RST) unanswered
      }
    });
    assertThat(body(send(uri, Duration.ofSeconds(5), new Cancellation()))).isEqualTo("ok");

    assertThatThrownBy(() -> send(uri, Duration.ofSeconds(5), new Cancellation()))
        .isInstanceOf(java.net.SocketException.class);
    assertThat(requests).as("sent once, on the kept-alive connection").hasValue(2);
    assertThat(connections).hasValue(1);
  }

  @Test
  void cancellationClosesTheCallAtOnce() throws Exception {
    URI uri = serve((in, out, s) -> {
      readRequest(in);
      in.read();
    });
    Cancellation cancellation = new Cancellation();
    Thread.ofVirtual().start(() -> {
      while (connections.get() == 0) {
        Thread.onSpinWait();
      }
      cancellation.cancel();
    });
    assertThatThrownBy(() -> send(uri, Duration.ofSeconds(30), cancellation)).isInstanceOf(CancellationException.class);
  }

  @Test
  void aStreamAbortedFromAnotherThreadUnblocksItsReader() throws Exception {
    URI uri = serve((in, out, s) -> {
      readRequest(in);
      write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
      in.read();
    });
    UpstreamResponse response = send(uri, Duration.ofSeconds(5), new Cancellation());
    Thread.ofVirtual().start(response::close); // as the watchdog does
    assertThatThrownBy(() -> response.body().read(new byte[10])).isInstanceOf(IOException.class);
  }
}
