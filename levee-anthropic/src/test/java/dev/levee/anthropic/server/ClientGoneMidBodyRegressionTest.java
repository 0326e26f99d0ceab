package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.error.ApiError;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (tester, one long-lived gateway): a client that closed or reset its connection
 * mid-upload ({@code content-length: 100}, 4 bytes sent) was answered 400 "The request body could
 * not be read." and told to the lanes' {@link RequestGuard.Refusals} as refused. Jetty fails a cut
 * body and a malformed chunked one alike ("Early EOF"); the door now tells them apart by the
 * connection: a client whose input ended is gone — no answer, {@link
 * RequestGuard.Refusals#clientGone} — and a malformed body, its client still there, keeps its 400.
 */
class ClientGoneMidBodyRegressionTest {

  private static final String HEAD = "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\n";

  private final LinkedBlockingQueue<String> heard = new LinkedBlockingQueue<>();
  private final AtomicInteger handled = new AtomicInteger();

  @ParameterizedTest(name = "the client {0}s")
  @ValueSource(strings = {"reset", "close"})
  void aClientLeavingMidBodyGetsNoAnswerAndIsHeardAsGoneNotRefused(String how) throws Exception {
    Server server = server();
    try (Socket socket = new Socket("127.0.0.1", VirtualThreadServer.port(server))) {
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write((HEAD + "content-length: 100\r\n\r\n{\"mo").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      awaitReadingTheBody(server);
      if (how.equals("reset")) {
        socket.setSoLinger(true, 0);
        socket.close();
      } else {
        socket.shutdownOutput();
        assertThat(socket.getInputStream().readAllBytes()).as("no answer").isEmpty();
      }

      assertThat(heard.poll(20, TimeUnit.SECONDS)).isEqualTo("gone POST /v1/messages id-1");
      assertThat(VirtualThreadServer.guard(server).inFlight()).as("its permit given back").isZero();
      assertThat(heard).as("heard once, never as refused").isEmpty();
      assertThat(handled).as("the handler never saw it").hasValue(0);
    } finally {
      server.stop();
    }
  }

  @Test
  void aMalformedChunkedBodyWhoseClientIsStillThereKeepsIts400() throws Exception {
    Server server = server();
    try (Socket socket = new Socket("127.0.0.1", VirtualThreadServer.port(server))) {
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write((HEAD + "transfer-encoding: chunked\r\n\r\n2\r\n{}\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      awaitReadingTheBody(server);
      out.write("zz\r\n".getBytes(StandardCharsets.US_ASCII)); // no chunk size
      out.flush();

      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      assertThat(answer).startsWith("HTTP/1.1 400").contains("\"invalid_request_error\"");
      assertThat(heard.poll(20, TimeUnit.SECONDS)).isEqualTo("refused 400 POST /v1/messages id-1");
      assertThat(heard).isEmpty();
    } finally {
      server.stop();
    }
  }

  /** A server whose lanes name each request {@code id-n} and put what they hear in {@link #heard}. */
  private Server server() throws Exception {
    AtomicInteger ids = new AtomicInteger();
    RequestGuard.Lanes lanes = new RequestGuard.Lanes(path -> false, null, headers -> "id-" + ids.incrementAndGet(),
        new RequestGuard.Refusals() {
          @Override
          public void refused(String method, String path, long beganNanos, String requestId, ApiError error) {
            heard.add("refused " + error.status() + " " + method + " " + path + " " + requestId);
          }

          @Override
          public void clientGone(String method, String path, long beganNanos, String requestId) {
            heard.add("gone " + method + " " + path + " " + requestId);
          }
        });
    Server server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofMinutes(5), "gone", new Handler.Abstract() {
      @Override
      public boolean handle(org.eclipse.jetty.server.Request request, org.eclipse.jetty.server.Response response,
          org.eclipse.jetty.util.Callback callback) {
        handled.incrementAndGet();
        callback.succeeded();
        return true;
      }
    }, ServerLimits.DEFAULT, lanes);
    server.start();
    return server;
  }

  /** Waits (bounded) until the door has admitted the request and is reading its body. */
  private static void awaitReadingTheBody(Server server) {
    long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (VirtualThreadServer.guard(server).inFlight() == 0 && System.nanoTime() < until) {
      Thread.onSpinWait();
    }
    assertThat(VirtualThreadServer.guard(server).inFlight()).as("reading the body").isEqualTo(1);
  }
}
