package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Issue 9 item 5: on SIGTERM an in-flight JSON request got 500 "CancellationException: client went
 * away" and an in-flight stream was cut without {@code event: error}. Now the server stops
 * accepting, lets requests finish within the grace, then ends the rest itself: 503 with {@code
 * retry-after} and {@code overloaded_error}, or an in-band {@code overloaded_error} event; the
 * handler's failure listeners hear a shutdown, not a client that left.
 */
class GracefulShutdownRegressionTest {

  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @Test
  void requestsStillInFlightAfterTheGraceEndAsShutdownNotAsCuts() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT.withShutdownGrace(Duration.ofMillis(200)))) {
      CompletableFuture<HttpResponse<String>> json = HTTP.sendAsync(
          ServerLimitsRegressionTest.post(server, "/v1/json", "k"), HttpResponse.BodyHandlers.ofString());
      CompletableFuture<HttpResponse<String>> stream = HTTP.sendAsync(
          ServerLimitsRegressionTest.post(server, "/v1/stream", "k"), HttpResponse.BodyHandlers.ofString());
      assertThat(server.awaitHeld(2)).isTrue();

      VirtualThreadServer.shutdown(server.server);

      HttpResponse<String> jsonAnswer = json.get();
      assertThat(jsonAnswer.statusCode()).isEqualTo(503);
      assertThat(jsonAnswer.headers().firstValue("retry-after")).isPresent();
      assertThat(jsonAnswer.body()).contains("\"overloaded_error\"").contains("gateway shutting down")
          .doesNotContain("Exception");
      HttpResponse<String> streamAnswer = stream.get();
      assertThat(streamAnswer.statusCode()).isEqualTo(200);
      assertThat(streamAnswer.body()).startsWith("event: ping").endsWith(
          "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"gateway shutting down\"}}\n\n");
      assertThat(server.failures.subList(0, 2)).as("what the handlers heard first")
          .allMatch(ServerShutdownException.class::isInstance);
    }
  }

  @Test
  void requestsThatFinishWithinTheGraceAreAnsweredNormallyWhileHealthSaysNotReady() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT.withShutdownGrace(Duration.ofSeconds(20)));
         java.net.Socket keptOpen = server.socket()) {
      CompletableFuture<HttpResponse<String>> json = HTTP.sendAsync(
          ServerLimitsRegressionTest.post(server, "/v1/json", "k"), HttpResponse.BodyHandlers.ofString());
      assertThat(server.awaitHeld(1)).isTrue();

      Thread stopping = Thread.ofPlatform().start(() -> {
        try {
          VirtualThreadServer.shutdown(server.server);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      while (!VirtualThreadServer.guard(server.server).draining()) {
        Thread.onSpinWait();
      }
      String health = TestServer.exchange(keptOpen, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
      server.release.countDown();
      stopping.join(30_000);

      assertThat(health).startsWith("HTTP/1.1 503").contains("\"shutting_down\"");
      assertThat(json.get().statusCode()).isEqualTo(200);
      assertThat(json.get().body()).isEqualTo("{\"ok\":true}");
      assertThat(server.failures).isEmpty();
    }
  }
}
