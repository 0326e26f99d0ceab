package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Issue 15, readiness: {@code /health/live} answers while the process serves; {@code
 * /health/ready} is 200 once started and 503 {@code draining} as soon as a graceful shutdown
 * begins, while requests in flight still finish.
 */
class HealthEndpointsTest {

  @Test
  void readyOnceStartedAndNotReadyWhileDraining() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), "policy: { deadline: 60s, attempt-timeout: 60s }\n",
        "shutdown-grace: 2s");
         HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      URI base = h.gateway.baseUrl(); // read while listening: a closed connector has no port
      assertThat(get(http, base, "/health/live").statusCode()).isEqualTo(200);
      HttpResponse<String> ready = get(http, base, "/health/ready"); // also leaves a kept-alive connection
      assertThat(ready.statusCode()).isEqualTo(200);
      assertThat(ready.body()).isEqualTo("{\"status\":\"ready\"}");
      assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/health/ready"))
          .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode())
          .isEqualTo(405);

      CompletableFuture<HttpResponse<String>> hanging = http.sendAsync(HttpRequest.newBuilder(
              URI.create(base + "/v1/messages")).header("x-api-key", "k")
          .header("content-type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(
              "{\"model\":\"emu-hang\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
          .build(), HttpResponse.BodyHandlers.ofString());
      h.emulator.awaitLog(log -> log.size() == 1, Duration.ofSeconds(20));
      Thread closer = Thread.ofVirtual().start(() -> {
        try {
          h.gateway.close();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });

      HttpResponse<String> draining = awaitNotReady(http, base);
      assertThat(draining.statusCode()).isEqualTo(503);
      assertThat(draining.body()).isEqualTo("{\"status\":\"draining\"}");
      closer.join();
      assertThat(hanging.get().statusCode()).isEqualTo(503); // ended by the server after the grace
    }
  }

  private static HttpResponse<String> awaitNotReady(HttpClient http, URI base) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    HttpResponse<String> r = get(http, base, "/health/ready");
    while (r.statusCode() == 200 && System.nanoTime() < until) {
      Thread.onSpinWait();
      r = get(http, base, "/health/ready");
    }
    return r;
  }

  private static HttpResponse<String> get(HttpClient http, URI base, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
