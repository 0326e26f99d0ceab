package dev.levee.bench;

import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.Gateway;
import dev.levee.gateway.cluster.ClusterConfig;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.jobs.ThrowAwayStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * What sharing state through Redis adds to a request through the gateway, measured in one run:
 * the same requests through a gateway without {@code cluster:} and through one with it (the Redis
 * at {@code redis://127.0.0.1:6379}, or the URI given as the first argument, production
 * defaults), both in front of one emulator with instant answers, sequential, in alternating
 * blocks so that both see the same machine load; p50, p99, mean and their ratios.
 *
 * <ul>
 *   <li><b>happy path</b>: the first target answers (shared breaker admit + success, cooldown and
 *       tier reads: local copies);
 *   <li><b>fallback</b>: the first target answers 529 and the second answers, with breakers off
 *       (a retry-budget token per request: the shared budget's lease, and the cooldown write path
 *       untouched).
 * </ul>
 *
 * <p>Keys live under a fresh cluster name and expire by themselves (no FLUSHALL). A benchmark, not
 * a test. Run: {@code java -cp "levee-bench/target/levee-bench.jar:levee-bench/target/lib/*"
 * dev.levee.bench.ClusterGatewayCost}.
 */
public final class ClusterGatewayCost {

  private static final int BLOCKS = 20;
  private static final int PER_BLOCK = 200;
  private static final int WARM_UP = 1_000;

  private ClusterGatewayCost() {}

  public static void main(String[] args) throws Exception {
    String redis = args.length > 0 ? args[0] : "redis://127.0.0.1:6379";
    ClusterConfig cluster = ClusterConfig.of(redis, "bench-gw-" + UUID.randomUUID().toString().substring(0, 8));
    try (Emulator emulator = Emulator.start(EmulatorOptions.builder().timeToFirstToken(Duration.ZERO)
            .deltaDelay(Duration.ZERO).build());
         HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      System.out.printf(Locale.ROOT, "sharing on vs off through the gateway (java %s, %d cpus, Redis %s): "
              + "%d sequential requests each, in blocks of %d alternating%n%n", Runtime.version(),
          Runtime.getRuntime().availableProcessors(), redis, BLOCKS * PER_BLOCK, PER_BLOCK);
      System.out.println("| path        | sharing | p50 latency | p99 latency | mean latency |");
      System.out.println("| ----------- | ------- | ----------: | ----------: | -----------: |");
      run(http, emulator, cluster, "happy path", "models: { smart: { chain: [emu/claude-a, emu/claude-b] } }\n");
      run(http, emulator, cluster, "fallback", """
          models: { smart: { chain: [emu/emu-529, emu/claude-b] } }
          policy: { retry: { max-retries: 0 }, breaker: off, retry-budget: { max: 1000000, ratio: 1 } }
          """);
    }
  }

  /** The gateway's config, with {@code store} its job store: one process holds an embedded store per gateway. */
  private static GatewayConfig config(Emulator emulator, String yaml, ThrowAwayStore store) throws Exception {
    return new ConfigLoader(Map.of("EMU", emulator.baseUrl())::get).parse(
        "server: { port: 0 }\nupstreams: { emu: { url: \"${EMU}\" } }\n" + yaml + store.queueSection(), "bench");
  }

  private static void run(HttpClient http, Emulator emulator, ClusterConfig cluster, String name, String yaml)
      throws Exception {
    try (ThrowAwayStore offStore = ThrowAwayStore.create("levee-bench");
         ThrowAwayStore onStore = ThrowAwayStore.create("levee-bench");
         Gateway off = Gateway.start(config(emulator, yaml, offStore));
         Gateway on = Gateway.start(config(emulator, yaml, onStore).withCluster(cluster))) {
      if (!on.cluster().orElseThrow().link().awaitShared(Duration.ofSeconds(5))) {
        throw new IllegalStateException("Redis did not answer at " + cluster.redis() + ": " + on.cluster().get().status());
      }
      HttpRequest toOff = request(off);
      HttpRequest toOn = request(on);
      for (int i = 0; i < WARM_UP; i++) {
        send(http, toOff);
        send(http, toOn);
      }
      double[] offMicros = new double[BLOCKS * PER_BLOCK];
      double[] onMicros = new double[BLOCKS * PER_BLOCK];
      for (int block = 0; block < BLOCKS; block++) {
        measure(http, block % 2 == 0 ? toOff : toOn, block % 2 == 0 ? offMicros : onMicros, block);
        measure(http, block % 2 == 0 ? toOn : toOff, block % 2 == 0 ? onMicros : offMicros, block);
      }
      Arrays.sort(offMicros);
      Arrays.sort(onMicros);
      print(name, "off", offMicros);
      print(name, "on", onMicros);
      System.out.printf(Locale.ROOT, "| %-11s | ratio   | %10.2fx | %10.2fx | %11.2fx |%n", name,
          onMicros[onMicros.length / 2] / offMicros[offMicros.length / 2],
          p99(onMicros) / p99(offMicros), mean(onMicros) / mean(offMicros));
      System.out.printf(Locale.ROOT, "  (%s: %s; local answers %d)%n", name, on.cluster().get().status().mode(),
          on.cluster().get().status().localAnswers());
    }
  }

  private static void measure(HttpClient http, HttpRequest request, double[] into, int block) throws Exception {
    for (int i = 0; i < PER_BLOCK; i++) {
      long start = System.nanoTime();
      send(http, request);
      into[block * PER_BLOCK + i] = (System.nanoTime() - start) / 1e3;
    }
  }

  private static HttpRequest request(Gateway gateway) {
    return HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/v1/messages"))
        .header("x-api-key", "bench").header("content-type", "application/json").header("anthropic-version", "2023-06-01")
        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"smart\",\"max_tokens\":64,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"How does a levee work?\"}]}"))
        .build();
  }

  private static void send(HttpClient http, HttpRequest request) throws Exception {
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("status " + response.statusCode() + ": " + response.body());
    }
  }

  private static double p99(double[] sorted) {
    return sorted[sorted.length * 99 / 100];
  }

  private static double mean(double[] values) {
    return Arrays.stream(values).average().orElse(0);
  }

  private static void print(String name, String sharing, double[] sorted) {
    System.out.printf(Locale.ROOT, "| %-11s | %-7s | %8.0f µs | %8.0f µs | %9.0f µs |%n", name, sharing,
        sorted[sorted.length / 2], p99(sorted), mean(sorted));
  }
}
