package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.anthropic.Json;
import dev.levee.core.time.ManualClock;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression (an operator's rolling deploys): on SIGTERM the gateway closed its listener at once,
 * while a load balancer or Kubernetes removes the endpoint concurrently with the signal, so for a
 * few seconds new connections were still routed to a replica that refused them: connection
 * refused on every deploy. With {@code server.drain-delay} above zero, {@code Gateway.close()}
 * first reports not ready ({@code /health/ready} 503 {@code draining}, {@code /health} 503
 * {@code draining}) while still serving everything, new connections included, until the delay
 * has passed on the gateway's clock; then it stops as before and the listener closes.
 */
class DrainDelayKeepsServingWhileUnreadyRegressionTest {

  private static final String CONFIG = "policy: { retry: { max-retries: 0 } }\ntiers: { evaluate-every: 1h }\n";

  @Test
  void newConnectionsAreServedWhileNotReadyUntilTheDelayPassesThenTheListenerCloses() throws Exception {
    ManualClock clock = new ManualClock();
    try (Harness h = Harness.start(VirtualTime.emulator(clock).build(), CONFIG, "drain-delay: 5s, shutdown-grace: 2s",
        VirtualTime.gateway(clock, 1))) {
      URI base = h.gateway.baseUrl(); // read while listening: a closed connector has no port
      assertThat(get(base, "/health/ready").statusCode()).isEqualTo(200);
      String expected = Json.tryParse(post(base).body()).at("/content/0/text").asText();
      assertThat(expected).isNotEmpty();

      Thread closer = Thread.ofVirtual().name("sigterm").start(() -> {
        try {
          h.gateway.close();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });

      HttpResponse<String> ready = awaitNotReady(base); // each on a new connection
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(ready.body()).isEqualTo("{\"status\":\"draining\"}");
      assertServedNormally(base, expected);
      HttpResponse<String> health = get(base, "/health");
      assertThat(health.statusCode()).as("a balancer probing /health stops routing too").isEqualTo(503);
      assertThat(Json.tryParse(health.body()).path("status").asText()).isEqualTo("draining");
      assertThat(Json.tryParse(health.body()).path("ready").asBoolean(true)).isFalse();

      clock.advance(Duration.ofMillis(4_900)); // not yet 5 s on the gateway's clock
      assertThat(closer.isAlive()).as("close() waits out the delay").isTrue();
      assertServedNormally(base, expected);
      assertThat(get(base, "/health/ready").statusCode()).isEqualTo(503);

      clock.advance(Duration.ofMillis(100)); // the delay has passed: the shutdown proper begins
      closer.join(Duration.ofSeconds(20));
      assertThat(closer.isAlive()).as("close() returned after the delay").isFalse();
      assertThatThrownBy(() -> get(base, "/health/ready")).as("the listener is closed, as before")
          .isInstanceOf(ConnectException.class);
    }
  }

  /** A new connection's {@code POST /v1/messages}: 200 with the emulator's answer, and ready still 503. */
  private static void assertServedNormally(URI base, String expected) throws Exception {
    HttpResponse<String> answer = post(base);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    assertThat(Json.tryParse(answer.body()).at("/content/0/text").asText()).isEqualTo(expected);
  }

  /** {@code /health/ready}, each time on a new connection, until it is not 200 (at most 10 s). */
  private static HttpResponse<String> awaitNotReady(URI base) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    HttpResponse<String> r = get(base, "/health/ready");
    while (r.statusCode() == 200 && System.nanoTime() < until) {
      Thread.onSpinWait();
      r = get(base, "/health/ready");
    }
    return r;
  }

  /** A GET on a new connection (a new client each time: nothing kept alive). */
  private static HttpResponse<String> get(URI base, String path) throws Exception {
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
    }
  }

  /** A {@code POST /v1/messages} on a new connection, for the emulator's model {@code emu-ok}. */
  private static HttpResponse<String> post(URI base) throws Exception {
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(HttpRequest.newBuilder(URI.create(base + "/v1/messages")).timeout(Duration.ofSeconds(20))
          .header("x-api-key", "sk-test").header("content-type", "application/json")
          .header(Harness.VERSION, Harness.DEFAULT_VERSION)
          .POST(HttpRequest.BodyPublishers.ofString(
              "{\"model\":\"emu-ok\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
          .build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
