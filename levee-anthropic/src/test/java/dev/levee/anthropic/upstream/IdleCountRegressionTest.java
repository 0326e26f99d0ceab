package dev.levee.anthropic.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, ten thousand slow streams: returning a connection to the pool asked the idle deque
 * its {@code size()}, which walks every node (up to 512), once per ending call — ten thousand
 * streams ending together walked millions of nodes. The pool now keeps its own count; this
 * checks the count stays true through returns and reuses.
 */
class IdleCountRegressionTest {

  private final PlainHttp1 client = new PlainHttp1(Duration.ofSeconds(2));
  private ServerSocket server;

  @AfterEach
  void close() throws IOException {
    client.close();
    if (server != null) {
      server.close();
    }
  }

  private URI serve() throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().start(() -> {
      while (!server.isClosed()) {
        try {
          Socket s = server.accept();
          Thread.ofVirtual().start(() -> {
            try (s) {
              BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
              OutputStream out = s.getOutputStream();
              while (true) {
                String line;
                while ((line = in.readLine()) != null && !line.isEmpty()) {
                  // the head
                }
                if (line == null) {
                  return;
                }
                in.skip(2); // "{}"
                out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}".getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
              }
            } catch (IOException ignored) {
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

  private UpstreamResponse send(URI uri) throws Exception {
    return client.send(new UpstreamRequest(uri, "POST", Map.of("x-api-key", List.of("k")), "{}".getBytes()),
        Duration.ofSeconds(5), new Cancellation());
  }

  @Test
  void theIdleCountFollowsReturnsAndReuses() throws Exception {
    URI uri = serve();
    String origin = "127.0.0.1:" + uri.getPort();
    List<UpstreamResponse> open = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      open.add(send(uri)); // three calls at once: three connections
    }
    assertThat(client.idleCount(origin)).isZero();
    for (UpstreamResponse r : open) {
      assertThat(r.body().readAllBytes()).asString().isEqualTo("{}");
      r.close();
    }
    assertThat(client.idleCount(origin)).isEqualTo(3);
    UpstreamResponse reused = send(uri);
    assertThat(client.idleCount(origin)).isEqualTo(2);
    reused.body().readAllBytes();
    reused.close();
    assertThat(client.idleCount(origin)).isEqualTo(3);
  }
}
