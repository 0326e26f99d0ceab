package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 9 item 10, on loopback: a JDK HttpClient driving kept-alive connections from 16 threads
 * got sporadic "400 No URI" / "Illegal character" and dropped connections, because the disconnect
 * watch (shared by the emulator and the gateway) could read the first bytes of the next request.
 * A bounded run through the gateway (two hops of watches) must see nothing but 200s. The race
 * itself is pinned down deterministically by {@code DisconnectWatchRegressionTest}.
 */
class KeepAliveLoadRegressionTest {

  private static final int REQUESTS = 3_000;
  private static final int THREADS = 16;

  @Test
  void keptAliveConnectionsUnderConcurrentLoadSeeOnlyWellFormedAnswers() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.builder().timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO)
            .build(), "");
         HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      Map<String, Integer> wrong = new ConcurrentHashMap<>();
      AtomicInteger sent = new AtomicInteger();
      try (ExecutorService pool = Executors.newFixedThreadPool(THREADS)) {
        for (int t = 0; t < THREADS; t++) {
          pool.submit(() -> {
            for (int i = sent.getAndIncrement(); i < REQUESTS; i = sent.getAndIncrement()) {
              try {
                HttpResponse<String> response = http.send(request(h, i % 2 == 0), HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() != 200) {
                  wrong.merge(response.statusCode() + " " + response.body(), 1, Integer::sum);
                }
              } catch (Exception e) {
                wrong.merge(e.toString(), 1, Integer::sum);
              }
            }
            return null;
          });
        }
      }

      assertThat(wrong).isEmpty();
      assertThat(h.emulator.log()).hasSize(Math.min(REQUESTS, 10_000));
    }
  }

  private static HttpRequest request(Harness h, boolean stream) {
    return HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + "/v1/messages"))
        .header("x-api-key", "test").header("content-type", "application/json").header("anthropic-version", "2023-06-01")
        .timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"claude-a\",\"max_tokens\":32,\"stream\":" + stream
            + ",\"messages\":[{\"role\":\"user\",\"content\":\"How does a levee work?\"}]}"))
        .build();
  }
}
