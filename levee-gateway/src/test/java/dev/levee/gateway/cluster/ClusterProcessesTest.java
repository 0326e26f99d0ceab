package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.e2e.GatewayProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14: three gateway processes (one JVM each, same config and {@code cluster.name}) on
 * loopback in front of one emulator, the real Redis between them. The breaker opens on failures
 * summed over the processes, and when its open period ends one trial in total reaches the primary.
 */
class ClusterProcessesTest {

  private static final String PRIMARY = "emu-529";
  private static final Duration OPEN_FOR = Duration.ofSeconds(6);

  private final RedisFixture redis = new RedisFixture();
  private final List<Process> processes = new ArrayList<>();
  private final List<String> bases = new ArrayList<>();
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  @TempDir
  Path dir; // the processes' configs and job stores, deleted once they are stopped

  @AfterEach
  void stop() throws Exception {
    for (Process p : processes) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    http.close();
    redis.close();
  }

  @Test
  void threeProcessesOpenOneBreakerAndLetOneTrialThrough() throws Exception {
    try (Emulator emulator = Emulator.start(EmulatorOptions.defaults())) {
      for (int i = 0; i < 3; i++) {
        Path config = dir.resolve("levee-" + i + ".yaml"); // each process its own job store
        Files.writeString(config, """
            server: { port: 0 }
            upstreams: { emu: { url: "%s" } }
            models:
              smart: { chain: [emu/emu-529, emu/claude-fallback] }
            policy:
              retry: { max-retries: 0 }
              breaker: { failures: 5, window: 60s, open-for: %ds }
              retry-budget: { max: 1000, ratio: 0 }
            queue: { folder: "%s" }
            cluster: { redis: "redis://127.0.0.1:6379", name: %s, command-timeout: 500ms }
            """.formatted(emulator.baseUrl(), OPEN_FOR.toSeconds(), dir.resolve("queue-" + i),
            redis.config.name()));
        Process process = GatewayProcess.launch(config);
        processes.add(process);
        bases.add("http://127.0.0.1:" + GatewayProcess.port(process));
      }
      for (String base : bases) { // each process has joined the cluster
        assertThat(RedisFixture.eventually(Duration.ofSeconds(10),
            () -> get(base + "/health").contains("\"mode\":\"SHARED\""))).isTrue();
      }

      for (int i = 0; i < 5; i++) { // round robin: each process sees at most two failures of its own
        assertThat(send(i).statusCode()).isEqualTo(200);
      }
      long openedAt = System.nanoTime();
      for (int i = 0; i < 15; i++) {
        assertThat(send(i).statusCode()).isEqualTo(200);
      }
      assertThat(calls(emulator)).as("the breaker opened for all three after 5 failures in total").isEqualTo(5);

      long left = OPEN_FOR.toNanos() - (System.nanoTime() - openedAt) + 500_000_000L;
      Thread.sleep(Math.max(0, left / 1_000_000)); // real processes on real time: wait out the open period
      try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
        List<Future<HttpResponse<String>>> burst = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
          int n = i;
          burst.add(pool.submit((Callable<HttpResponse<String>>) () -> send(n)));
        }
        for (Future<HttpResponse<String>> f : burst) {
          assertThat(f.get().statusCode()).isEqualTo(200);
        }
      }
      assertThat(calls(emulator)).as("one half-open trial across the three processes").isEqualTo(6);
    }
  }

  private static int calls(Emulator emulator) {
    return (int) emulator.log().stream().filter(e -> PRIMARY.equals(e.model())).count();
  }

  private HttpResponse<String> send(int n) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(bases.get(n % 3) + "/v1/messages"))
        .timeout(Duration.ofSeconds(20))
        .header("content-type", "application/json").header("x-api-key", "sk-test-client-key")
        .header("anthropic-version", "2023-06-01")
        .POST(HttpRequest.BodyPublishers.ofString(
            "{\"model\":\"smart\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"hi " + n + "\"}]}"))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  private String get(String url) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    } catch (Exception e) {
      return "";
    }
  }

}
