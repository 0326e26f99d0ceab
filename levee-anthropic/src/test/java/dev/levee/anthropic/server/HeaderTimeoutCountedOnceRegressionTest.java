package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12): a connection whose headers came too slowly was answered 408 and counted
 * as refused, and, in a loaded full test run, counted a second time as a 5xx refusal with no path:
 * when Jetty read the connection's end before the 408's close was done, it closed the {@link
 * HttpConnection} itself, which fails the request whose headers it was reading, and the error
 * handler answered and counted that failure (500 on {@code /badRequest}). The test drives that end of
 * the connection itself, after the 408, instead of waiting for a loaded box to race it.
 */
class HeaderTimeoutCountedOnceRegressionTest {

  @Test
  void aConnectionAnswered408IsNotCountedAgainWhenJettyClosesIt() throws Exception {
    List<String> refusals = new CopyOnWriteArrayList<>();
    CountDownLatch firstCounted = new CountDownLatch(1);
    RequestGuard.Lanes lanes = new RequestGuard.Lanes(path -> false, null, headers -> "id-" + refusals.size(),
        (method, path, began, id, error) -> {
          refusals.add(error.status() + " " + (path == null ? "-" : path) + " " + id);
          firstCounted.countDown();
        });
    Server server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofMinutes(5), "once", new Handler.Abstract() {
      @Override
      public boolean handle(org.eclipse.jetty.server.Request request, org.eclipse.jetty.server.Response response,
          org.eclipse.jetty.util.Callback callback) {
        callback.succeeded();
        return true;
      }
    }, ServerLimits.DEFAULT.withTimeouts(Duration.ofMillis(100), 1_000), lanes);
    CompletableFuture<Connection> opened = new CompletableFuture<>();
    server.getConnectors()[0].addEventListener(new Connection.Listener() {
      @Override
      public void onOpened(Connection connection) {
        opened.complete(connection);
      }
    });
    server.start();
    try (Socket socket = new Socket("127.0.0.1", VirtualThreadServer.port(server))) {
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      HttpConnection http = (HttpConnection) opened.get(20, TimeUnit.SECONDS);

      String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      assertThat(answer).startsWith("HTTP/1.1 408");
      // the client can read the 408 before the server's thread has counted it (CI, session 12)
      assertThat(firstCounted.await(20, TimeUnit.SECONDS)).as("the 408 counted").isTrue();
      http.close(); // what Jetty does when it reads the connection's end with its output shut, before the close is done

      assertThat(refusals).as("the 408, counted once").containsExactly("408 - id-0");
    } finally {
      server.stop();
    }
  }
}
