package dev.levee.anthropic.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;

/**
 * A {@link VirtualThreadServer} on a free loopback port whose API handler holds every request
 * until released: {@code /v1/json} answers JSON, {@code /v1/stream} starts an SSE stream with
 * one event first; {@code /health} answers at once.
 */
final class TestServer implements AutoCloseable {

  final Server server;
  final Semaphore entered = new Semaphore(0);
  final CountDownLatch release = new CountDownLatch(1);
  final java.util.List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();

  TestServer(ServerLimits limits) throws Exception {
    this(limits, RequestGuard.Refusals.NONE);
  }

  /** @param refusals hears the door's refusals */
  TestServer(ServerLimits limits, RequestGuard.Refusals refusals) throws Exception {
    server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofMinutes(5), "test", new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = Request.getPathInContext(request);
        if (path.equals("/health")) {
          ServerIo.json(response, callback, 200, "{\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8));
          return true;
        }
        Content.Source.asByteBuffer(request);
        request.addFailureListener(failures::add);
        if (path.equals("/v1/stream")) {
          response.getHeaders().put("content-type", "text/event-stream");
          try (var out = Content.Sink.asOutputStream(response)) {
            out.write("event: ping\ndata: {\"type\":\"ping\"}\n\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            entered.release();
            release.await();
            out.write("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n".getBytes(StandardCharsets.UTF_8));
          } catch (IOException e) {
            callback.failed(e);
            return true;
          }
          callback.succeeded();
          return true;
        }
        entered.release();
        release.await();
        response.write(true, ByteBuffer.wrap("{\"ok\":true}".getBytes(StandardCharsets.UTF_8)), callback);
        return true;
      }
    }, limits, new RequestGuard.Lanes(p -> p.equals("/health"), "/health").heardBy(refusals));
    server.start();
  }

  int port() {
    return VirtualThreadServer.port(server);
  }

  /** Waits until {@code n} API requests are held in the handler. */
  boolean awaitHeld(int n) throws InterruptedException {
    return entered.tryAcquire(n, 30, TimeUnit.SECONDS);
  }

  Socket socket() throws IOException {
    Socket socket = new Socket("127.0.0.1", port());
    socket.setSoTimeout(20_000);
    return socket;
  }

  /** Sends raw bytes and reads until the server closes the connection. */
  static String exchange(Socket socket, String raw) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(raw.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
    InputStream in = socket.getInputStream();
    return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() throws Exception {
    release.countDown();
    server.stop();
  }
}
