package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * {@link ServerIo#headers}: names lower-case whatever case the client sent, known and unknown
 * names alike, in arrival order; a name sent twice, in two cases, is one entry with both values.
 */
class ServerIoHeadersTest {

  @Test
  void namesAreLowerCaseAndANameSentTwiceInTwoCasesIsOneEntry() throws Exception {
    AtomicReference<LowerCaseHeaders> seen = new AtomicReference<>();
    Server server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofMinutes(1), "headers", new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        seen.set(ServerIo.headers(request));
        ServerIo.json(response, callback, 200, "{}".getBytes(StandardCharsets.UTF_8));
        return true;
      }
    });
    server.start();
    try (Socket socket = new Socket("127.0.0.1", VirtualThreadServer.port(server))) {
      socket.setSoTimeout(20_000);
      socket.getOutputStream().write(("GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: k1\r\n"
          + "Anthropic-Beta: one\r\nX-Levee-Feature: Reports\r\nanthropic-beta: two\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      socket.getInputStream().transferTo(answer);
      assertThat(answer.toString(StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 200");
    } finally {
      server.stop();
    }
    assertThat(seen.get().keySet())
        .containsExactly("host", "x-api-key", "anthropic-beta", "x-levee-feature", "connection");
    assertThat(seen.get().get("anthropic-beta")).containsExactly("one", "two");
    assertThat(seen.get().get("x-levee-feature")).isEqualTo(List.of("Reports")); // values keep their case
  }
}
