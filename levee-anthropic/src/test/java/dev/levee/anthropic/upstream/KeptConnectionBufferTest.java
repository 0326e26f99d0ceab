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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Session 13 (issue 11, CPU per stream): a kept-alive connection waits for its next answer's head
 * on the read buffer it has. It used to swap it for a fresh small one before that wait, so every
 * call on a kept-alive connection whose answer came in one write grew the buffer again: a read
 * that filled the small buffer, a check of what waited, a grown copy and one read more (8.5 KB
 * allocated per side-by-side stream). While a body is awaited, the buffer still shrinks ({@link
 * SlowStreamBufferRegressionTest}).
 */
class KeptConnectionBufferTest {

  private final PlainHttp1 client = new PlainHttp1(Duration.ofSeconds(2));
  private ServerSocket server;

  @AfterEach
  void close() throws IOException {
    client.close();
    if (server != null) {
      server.close();
    }
  }

  /**
   * One kept-alive connection answering its requests, in turn, with {@code answers} (each one
   * write), the last once {@code last} opens.
   */
  private URI serve(CountDownLatch last, String... answers) throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().start(() -> {
      try (Socket s = server.accept()) {
        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
        OutputStream out = s.getOutputStream();
        for (int i = 0; i < answers.length; i++) {
          String line;
          while ((line = in.readLine()) != null && !line.isEmpty()) {
            // the request's head; its body is "{}"
          }
          in.skip(2);
          if (i == answers.length - 1) {
            last.await();
          }
          out.write(answers[i].getBytes(StandardCharsets.ISO_8859_1));
          out.flush();
        }
        s.getInputStream().read(); // until the client closes
      } catch (Exception ignored) {
        // the client went away
      }
    });
    return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/v1/messages");
  }

  private static String answer(String body) {
    return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
  }

  private String call(URI uri, int[] capacity) throws Exception {
    try (UpstreamResponse response = client.send(new UpstreamRequest(uri, "POST", Map.of("x-api-key", List.of("k")),
        "{}".getBytes(StandardCharsets.UTF_8)), Duration.ofSeconds(5), new Cancellation())) {
      capacity[0] = PlainHttp1.readBufferCapacity(response.body());
      return new String(response.body().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  @Test
  void aKeptConnectionWaitsForItsNextAnswerOnTheBufferItHas() throws Exception {
    String large = "x".repeat(3_000);
    CountDownLatch go = new CountDownLatch(1);
    URI uri = serve(go, answer(large), answer("{}"));
    int[] first = new int[1];
    int[] second = new int[1];
    String[] secondBody = new String[1];

    assertThat(call(uri, first)).isEqualTo(large);
    Thread caller = Thread.ofVirtual().start(() -> {
      try {
        secondBody[0] = call(uri, second);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    while (caller.getState() != Thread.State.WAITING) { // parked awaiting the head: the server sends nothing before go
      Thread.onSpinWait();
    }
    go.countDown();
    caller.join();

    assertThat(secondBody[0]).isEqualTo("{}");
    assertThat(client.idleCount("127.0.0.1:" + uri.getPort())).isEqualTo(1); // one connection, kept for both
    assertThat(first[0]).as("grown for an answer that came faster than it was read").isGreaterThan(PlainHttp1.SMALL_BUFFER);
    assertThat(second[0]).as("the next answer's head awaited on the same buffer").isEqualTo(first[0]);
  }
}
