package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Issue 9 items 1 and 2. Before: Jetty's virtual thread pool capped handlers at 200, so 200 held
 * requests (or 200 slow uploads) locked out {@code /v1/messages} and {@code /health} alike; one
 * byte every few seconds kept a header or body read open indefinitely, and a stalled body got a
 * 400 with Java exception text. Concurrency had no limit but the thread cap.
 */
class ServerLimitsRegressionTest {

  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void moreThanTwoHundredHeldRequestsAllRunAndHealthStillAnswers() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT)) {
      List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
      for (int i = 0; i < 260; i++) {
        held.add(HTTP.sendAsync(post(server, "/v1/json", "key-" + (i % 7)), HttpResponse.BodyHandlers.ofString()));
      }

      assertThat(server.awaitHeld(260)).as("every held request reached its handler").isTrue();
      HttpResponse<String> health = HTTP.send(get(server, "/health"), HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);

      server.release.countDown();
      for (CompletableFuture<HttpResponse<String>> response : held) {
        assertThat(response.get().statusCode()).isEqualTo(200);
      }
    }
  }

  @Test
  void twoHundredTwentyStalledUploadsLockNobodyOut() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT)) {
      server.release.countDown(); // API requests are answered at once
      List<Socket> stalled = new ArrayList<>();
      try {
        for (int i = 0; i < 220; i++) { // the reproduction: declared 1000 bytes, sent 17
          Socket socket = server.socket();
          socket.getOutputStream().write(("POST /v1/json HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: s" + i
              + "\r\ncontent-length: 1000\r\n\r\n{\"model\":\"claude\"").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
          socket.getOutputStream().flush();
          stalled.add(socket);
        }

        assertThat(HTTP.send(post(server, "/v1/json", "healthy"), HttpResponse.BodyHandlers.ofString()).statusCode())
            .isEqualTo(200);
        assertThat(HTTP.send(get(server, "/health"), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
      } finally {
        for (Socket socket : stalled) {
          socket.close();
        }
      }
    }
  }

  /**
   * Newcomer trial, session 11: a connection that sent no byte held its slot until the idle
   * timeout (300 s in the gateway); with {@code max-connections: 20}, 25 silent sockets locked out
   * {@code /health} and {@code /v1/messages} alike. Now it is closed once older than the header
   * timeout, and a kept-alive connection between requests is not. (It was answered 408 until
   * session 15: it sent no request, so it is now closed without an answer, and counted.)
   */
  @Test
  void aConnectionThatSendsNothingIsClosedAfterTheHeaderTimeoutAndAKeptAliveOneIsNot() throws Exception {
    // 1 s: the kept-alive socket's request must be read by the server before the sweeps call it silent
    try (TestServer server = new TestServer(ServerLimits.DEFAULT.withTimeouts(Duration.ofSeconds(1), 1_000));
         Socket silent = server.socket();
         Socket keptAlive = server.socket()) {
      keptAlive.getOutputStream().write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(
          java.nio.charset.StandardCharsets.US_ASCII));
      assertThat(headOf(keptAlive)).startsWith("HTTP/1.1 200");

      assertThat(new String(silent.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII))
          .as("the silent connection is closed without an answer").isEmpty();
      assertThat(VirtualThreadServer.silentConnectionsClosed(server.server)).isEqualTo(1);
      keptAlive.setSoTimeout(500);
      assertThatThrownBy(() -> keptAlive.getInputStream().read()).as("the kept-alive connection stays open")
          .isInstanceOf(java.net.SocketTimeoutException.class);
    }
  }

  /** The status line and headers of one answer on {@code socket}; its body (by content-length) is read and dropped. */
  private static String headOf(Socket socket) throws java.io.IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = socket.getInputStream().read();
      if (b < 0) {
        return head.toString();
      }
      head.append((char) b);
    }
    java.util.regex.Matcher length = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
    socket.getInputStream().readNBytes(length.find() ? Integer.parseInt(length.group(1)) : 0);
    return head.toString();
  }

  @Test
  void headersSentTooSlowlyGet408AndTheConnectionCloses() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT.withTimeouts(Duration.ofMillis(300), 1_000));
         Socket socket = server.socket()) {
      String answer = TestServer.exchange(socket, "POST /v1/json HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\n");

      assertThat(answer).startsWith("HTTP/1.1 408").contains("\"timeout_error\"").doesNotContain("Exception");
    }
  }

  @Test
  void aBodySentTooSlowlyGets408WithoutJavaTextAndTheConnectionCloses() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT.withTimeouts(Duration.ofMillis(300), 1_000));
         Socket socket = server.socket()) {
      String answer = TestServer.exchange(socket, "POST /v1/json HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\n"
          + "content-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"model\":\"claude\",");

      assertThat(answer).startsWith("HTTP/1.1 408").contains("\"timeout_error\"").containsIgnoringCase("connection: close")
          .doesNotContain("Exception").doesNotContain("java.");
      assertThat(server.entered.availablePermits()).as("the handler never saw the request").isZero();
    }
  }

  @Test
  void beyondTheTenantsLimitA429AndBeyondTheServersA529AtOnceWithRetryAfter() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT.withMaxConcurrent(3, 2))) {
      List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
      held.add(HTTP.sendAsync(post(server, "/v1/json", "tenant-a"), HttpResponse.BodyHandlers.ofString()));
      held.add(HTTP.sendAsync(post(server, "/v1/json", "tenant-a"), HttpResponse.BodyHandlers.ofString()));
      assertThat(server.awaitHeld(2)).isTrue();

      HttpResponse<String> thirdOfA = HTTP.send(post(server, "/v1/json", "tenant-a"), HttpResponse.BodyHandlers.ofString());
      held.add(HTTP.sendAsync(post(server, "/v1/json", "tenant-b"), HttpResponse.BodyHandlers.ofString()));
      assertThat(server.awaitHeld(1)).isTrue();
      HttpResponse<String> fromC = HTTP.send(post(server, "/v1/json", "tenant-c"), HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> health = HTTP.send(get(server, "/health"), HttpResponse.BodyHandlers.ofString());

      assertThat(thirdOfA.statusCode()).isEqualTo(429);
      assertThat(thirdOfA.body()).contains("\"rate_limit_error\"");
      assertThat(thirdOfA.headers().firstValue("retry-after")).hasValue("1");
      assertThat(fromC.statusCode()).isEqualTo(529);
      assertThat(fromC.body()).contains("\"overloaded_error\"");
      assertThat(fromC.headers().firstValue("retry-after")).hasValue("1");
      assertThat(health.statusCode()).as("the control lane is never limited").isEqualTo(200);

      server.release.countDown();
      for (CompletableFuture<HttpResponse<String>> response : held) {
        assertThat(response.get().statusCode()).isEqualTo(200);
      }
      HttpResponse<String> afterwards = HTTP.send(post(server, "/v1/json", "tenant-a"), HttpResponse.BodyHandlers.ofString());
      assertThat(afterwards.statusCode()).as("permits are released when requests end").isEqualTo(200);
    }
  }

  static HttpRequest post(TestServer server, String path, String key) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).header("x-api-key", key)
        .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"claude\"}")).build();
  }

  static HttpRequest get(TestServer server, String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(10)).GET().build();
  }
}
