package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, slow streams at {@code -Xmx256m}. Before: the guard kept the request body it had read
 * (to serve it to the handler from memory) for the whole exchange — a stream's whole life — beside
 * the handler's own copy: every request in flight held its body twice (session 6's heap dump of
 * 9,900 streams: {@code GuardedExchange$BufferedRequest} and {@code MessagesRequest}, one body
 * each). Now the guard lets the body go as it serves it.
 */
class ServedBodyLetGoRegressionTest {

  @Test
  void theGuardKeepsNoBodyOnceItHasServedItWhileTheExchangeGoesOn() throws Exception {
    Server server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofSeconds(30), "served", new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        Content.Chunk chunk = request.read(); // the guard's buffered body, served from memory
        WeakReference<byte[]> served = new WeakReference<>(chunk.getByteBuffer().array());
        int length = chunk.getByteBuffer().remaining();
        boolean eofNext = request.read() == Content.Chunk.EOF;
        CountDownLatch returned = new CountDownLatch(1);
        Thread.ofVirtual().start(() -> { // the exchange goes on after handle returns, as a stream's does
          try {
            returned.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          for (int i = 0; i < 10 && served.get() != null; i++) {
            System.gc(); // only the guard's exchange, still open, could keep the body now
          }
          String answer = length + " " + eofNext + " " + (served.get() == null ? "let go" : "kept");
          response.write(true, ByteBuffer.wrap(answer.getBytes(StandardCharsets.UTF_8)), callback);
        });
        returned.countDown();
        return true;
      }
    });
    server.start();
    try (Socket socket = new Socket("127.0.0.1", VirtualThreadServer.port(server))) {
      String body = "{\"model\":\"m\",\"messages\":[]}";
      socket.getOutputStream().write(("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-length: "
          + body.length() + "\r\nconnection: close\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

      assertThat(answer).startsWith("HTTP/1.1 200").endsWith("\r\n\r\n" + body.length() + " true let go");
    } finally {
      server.stop();
    }
  }
}
