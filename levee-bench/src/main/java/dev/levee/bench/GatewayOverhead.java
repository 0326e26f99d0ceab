package dev.levee.bench;

import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigLoader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What the gateway adds on the happy path, measured in one run: the same JSON and streamed
 * requests sent to the emulator directly and through a gateway in front of it (instant answers,
 * so the difference is Levee's), sequential latency and concurrent throughput, and the ratios.
 * A benchmark, not a test.
 *
 * <p>Run: {@code java -cp levee-bench/target/levee-bench.jar dev.levee.bench.GatewayOverhead}.
 */
public final class GatewayOverhead {

  private static final int SEQUENTIAL = 2_000;
  private static final int CONCURRENT = 20_000;
  private static final int THREADS = 32;

  private GatewayOverhead() {}

  public static void main(String[] args) throws Exception {
    try (Emulator emulator = Emulator.start(EmulatorOptions.builder().timeToFirstToken(Duration.ZERO)
            .deltaDelay(Duration.ZERO).build());
         Gateway gateway = Gateway.start(new ConfigLoader(Map.of("EMU", emulator.baseUrl())::get).parse("""
             server: { port: 0 }
             upstreams: { emu: { url: "${EMU}" } }
             models: { smart: { chain: [emu/claude-a, emu/claude-b] } }
             """, "bench"));
         HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      System.out.printf(Locale.ROOT, "gateway overhead on the happy path (java %s, %d cpus): %d sequential, "
          + "%d concurrent requests on %d threads%n%n", Runtime.version(), Runtime.getRuntime().availableProcessors(),
          SEQUENTIAL, CONCURRENT, THREADS);
      System.out.println("| request | path    | p50 latency | p99 latency | throughput |");
      System.out.println("| ------- | ------- | ----------: | ----------: | ---------: |");
      for (boolean stream : new boolean[] {false, true}) {
        Result direct = measure(http, emulator.baseUrl(), "claude-a", stream);
        Result levee = measure(http, gateway.baseUrl().toString(), "smart", stream);
        String kind = stream ? "stream" : "JSON";
        print(kind, "direct", direct);
        print(kind, "Levee", levee);
        System.out.printf(Locale.ROOT, "| %-7s | ratio   | %10.2fx | %10.2fx | %9.2fx |%n", kind,
            levee.p50 / direct.p50, levee.p99 / direct.p99, levee.perSecond / direct.perSecond);
      }
    }
  }

  private record Result(double p50, double p99, double perSecond) {}

  private static Result measure(HttpClient http, String base, String model, boolean stream) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/v1/messages"))
        .header("x-api-key", "bench").header("content-type", "application/json").header("anthropic-version", "2023-06-01")
        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + model + "\",\"max_tokens\":64,\"stream\":" + stream
            + ",\"messages\":[{\"role\":\"user\",\"content\":\"How does a levee work?\"}]}"))
        .build();
    for (int i = 0; i < 500; i++) {
      send(http, request); // warm-up
    }
    double[] micros = new double[SEQUENTIAL];
    for (int i = 0; i < SEQUENTIAL; i++) {
      long start = System.nanoTime();
      send(http, request);
      micros[i] = (System.nanoTime() - start) / 1e3;
    }
    Arrays.sort(micros);
    long start = System.nanoTime();
    try (ExecutorService pool = Executors.newFixedThreadPool(THREADS)) {
      List<Future<?>> all = new ArrayList<>();
      for (int i = 0; i < CONCURRENT; i++) {
        all.add(pool.submit(() -> send(http, request)));
      }
      for (Future<?> f : all) {
        f.get();
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Result(micros[SEQUENTIAL / 2], micros[SEQUENTIAL * 99 / 100], CONCURRENT / seconds);
  }

  private static Void send(HttpClient http, HttpRequest request) throws Exception {
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("status " + response.statusCode() + ": " + response.body());
    }
    return null;
  }

  private static void print(String kind, String path, Result r) {
    System.out.printf(Locale.ROOT, "| %-7s | %-7s | %8.0f µs | %8.0f µs | %7.0f /s |%n", kind, path, r.p50, r.p99,
        r.perSecond);
  }
}
