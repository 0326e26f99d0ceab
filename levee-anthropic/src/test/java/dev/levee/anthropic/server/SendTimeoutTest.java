package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * {@link ServerLimits#sendTimeout()} on a bare {@link VirtualThreadServer} (the gateway and the
 * emulator share it): a client that stops reading an answer larger than the socket buffers has the
 * handler's pending write failed and its connection closed, within the timeout and a few sweeps of
 * the buffers filling; a
 * handler that writes nothing for three times the timeout (an upstream slow to answer) is left
 * alone, and its client gets the answer. A handler whose write failed can tell the cut from a client
 * that went away ({@link SendTimeoutException#endedBySendTimeout}).
 */
class SendTimeoutTest {

  private static final int CHUNK = 64 * 1024;

  /** Bytes the big answer holds at most: far more than the loopback socket buffers (a few MiB). */
  private static final long BIG = 64L << 20;

  private final CompletableFuture<Duration> writeFailedAfter = new CompletableFuture<>();
  private final CompletableFuture<Throwable> requestFailed = new CompletableFuture<>();
  private final CompletableFuture<Boolean> endedBySendTimeout = new CompletableFuture<>(); // as the handler read it when its write failed

  @Test
  void aPendingWriteThatTakesNothingFailsAndTheConnectionCloses() throws Exception {
    Server server = start(ServerLimits.DEFAULT.withSendTimeout(Duration.ofSeconds(1)));
    try (Socket client = request(server, "/v1/big")) {
      InputStream in = client.getInputStream();
      assertThat(new String(in.readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
      // and reads no more

      Duration failedAfter = writeFailedAfter.get(20, TimeUnit.SECONDS);

      assertThat(failedAfter).as("from the first write to the failed one (buffers filling, then the timeout)")
          .isLessThan(Duration.ofSeconds(15));
      client.setSoTimeout(20_000);
      long read = 0;
      try {
        for (int n; (n = in.read(new byte[CHUNK])) >= 0; ) {
          read += n;
        }
      } catch (IOException reset) {
        // a reset is a close too
      }
      assertThat(read).as("the answer was cut: what the buffers held, not all of it").isLessThan(BIG);
      assertThat(endedBySendTimeout.get(5, TimeUnit.SECONDS)).as("the handler reads why: the send timeout").isTrue();
    } finally {
      server.stop();
    }
  }

  @Test
  void aClientThatDisconnectsIsNotTakenForASendTimeout() throws Exception {
    Server server = start(ServerLimits.DEFAULT.withSendTimeout(Duration.ofSeconds(1)));
    try (Socket client = request(server, "/v1/big")) {
      InputStream in = client.getInputStream();
      assertThat(new String(in.readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
      client.setSoLinger(true, 0); // goes away at once, its unread bytes dropped: a reset
      client.close();

      writeFailedAfter.get(20, TimeUnit.SECONDS);

      assertThat(endedBySendTimeout.get(5, TimeUnit.SECONDS)).as("a client that left, not one the server cut")
          .isFalse();
    } finally {
      server.stop();
    }
  }

  @Test
  void aHandlerSilentForThreeTimesTheTimeoutIsNotCut() throws Exception {
    Server server = start(ServerLimits.DEFAULT.withSendTimeout(Duration.ofSeconds(1)));
    try (Socket client = request(server, "/v1/silent")) {
      client.setSoTimeout(20_000);
      String answer = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

      assertThat(answer).startsWith("HTTP/1.1 200").endsWith("{\"late\":true}");
      assertThat(requestFailed).as("no failure").isNotDone();
    } finally {
      server.stop();
    }
  }

  private Server start(ServerLimits limits) throws Exception {
    Server server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofMinutes(5), "send-timeout",
        new Handler.Abstract() {
          @Override
          public boolean handle(Request request, Response response, Callback callback) throws Exception {
            request.addFailureListener(requestFailed::complete);
            if (Request.getPathInContext(request).equals("/v1/silent")) {
              Thread.sleep(3_000); // an upstream slow to answer: no write pending meanwhile
              response.getHeaders().put("content-type", "application/json");
              response.getHeaders().put("connection", "close");
              response.write(true, ByteBuffer.wrap("{\"late\":true}".getBytes(StandardCharsets.UTF_8)), callback);
              return true;
            }
            response.getHeaders().put("content-type", "text/event-stream");
            long first = System.nanoTime();
            byte[] chunk = new byte[CHUNK];
            try {
              for (long sent = 0; sent < BIG; sent += CHUNK) {
                try (Blocker.Callback written = Blocker.callback()) {
                  response.write(false, ByteBuffer.wrap(chunk), written);
                  written.block();
                }
              }
            } catch (IOException e) {
              endedBySendTimeout.complete(SendTimeoutException.endedBySendTimeout(request));
              writeFailedAfter.complete(Duration.ofNanos(System.nanoTime() - first));
              callback.failed(e);
              return true;
            }
            callback.succeeded();
            return true;
          }
        }, limits, RequestGuard.Lanes.NONE);
    server.start();
    return server;
  }

  /** A connection with a small receive buffer that has sent a GET for {@code path}. */
  private static Socket request(Server server, String path) throws IOException {
    Socket socket = new Socket();
    socket.setReceiveBufferSize(4096);
    socket.connect(new InetSocketAddress("127.0.0.1", VirtualThreadServer.port(server)));
    OutputStream out = socket.getOutputStream();
    out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return socket;
  }
}
