package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * Regression: Jetty knows no reason phrase for 529, so every overloaded answer of the gateway and
 * the emulator went out with the status line {@code HTTP/1.1 529 529} ({@code curl -i}, proxy
 * logs). It now reads {@code HTTP/1.1 529 Overloaded}; known statuses keep Jetty's phrase.
 */
class OverloadedStatusLineRegressionTest {

  @Test
  void a529SaysOverloadedInItsStatusLine() throws Exception {
    Server server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofMinutes(1), "status", new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        int status = Integer.parseInt(Request.getPathInContext(request).substring(1));
        ServerIo.json(response, callback, status, "{}".getBytes(StandardCharsets.UTF_8));
        return true;
      }
    });
    server.start();
    try {
      int port = VirtualThreadServer.port(server);
      assertThat(statusLine(port, 529)).isEqualTo("HTTP/1.1 529 Overloaded");
      assertThat(statusLine(port, 429)).isEqualTo("HTTP/1.1 429 Too Many Requests");
      assertThat(statusLine(port, 200)).isEqualTo("HTTP/1.1 200 OK");
    } finally {
      server.stop();
    }
  }

  private static String statusLine(int port, int status) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(20_000);
      socket.getOutputStream().write(("GET /" + status + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1)).readLine();
    }
  }
}
