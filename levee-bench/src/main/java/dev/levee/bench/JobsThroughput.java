package dev.levee.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigLoader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How fast the worker pool drains a Message Batch against the instant emulator, with the embedded
 * SQLite store and with PostgreSQL (127.0.0.1:5432, database {@code test}, a throw-away schema),
 * and what a draining batch does to interactive requests: the p99 of sequential {@code POST
 * /v1/messages} while idle (before and after the drain, to show how much a shared machine moved)
 * and while the batch drains, and its ratio to each idle figure. One run, one machine.
 * A benchmark, not a test.
 *
 * <p>Run: {@code java -cp levee-bench/target/levee-bench.jar dev.levee.bench.JobsThroughput
 * [requests=5000] [workers=32] [yield-above=-1,0] [stores=sqlite,postgresql]}: one row per store
 * and {@code queue.yield-above} ({@code -1}: no pacing; {@code 0}: workers yield to any
 * interactive request in flight).
 */
public final class JobsThroughput {

  private static final String POSTGRES = "postgresql://127.0.0.1:5432/test?user=postgres";

  private JobsThroughput() {}

  public static void main(String[] args) throws Exception {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
    int workers = args.length > 1 ? Integer.parseInt(args[1]) : 32;
    List<Integer> yields = Arrays.stream((args.length > 2 ? args[2] : "-1,0").split(",")).map(Integer::parseInt).toList();
    List<String> stores = List.of((args.length > 3 ? args[3] : "sqlite,postgresql").split(","));
    System.out.printf(Locale.ROOT, "jobs drained against the instant emulator (java %s, %d cpus): a batch of %d, "
        + "%d workers%n%n", Runtime.version(), Runtime.getRuntime().availableProcessors(), requests, workers);
    System.out.println("| store      | yield-above | jobs/s | drain time | p99 idle before / after | p99 while draining | ratio to before / after |");
    System.out.println("| ---------- | ----------: | -----: | ---------: | ----------------------: | -----------------: | ----------------------: |");
    try (Emulator emulator = Emulator.start(EmulatorOptions.builder().timeToFirstToken(Duration.ZERO)
            .deltaDelay(Duration.ZERO).build());
         HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      for (String store : stores) {
        for (int yieldAbove : yields) {
          if (store.equals("sqlite")) {
            run("sqlite", "folder: " + Files.createTempDirectory("levee-bench-jobs"), emulator, http, requests, workers,
                yieldAbove);
            continue;
          }
          String schema = "levee_bench_" + System.nanoTime();
          try {
            run("postgresql", "store: \"" + POSTGRES + "\"\n  schema: " + schema, emulator, http, requests, workers,
                yieldAbove);
          } finally {
            try (Connection c = DriverManager.getConnection("jdbc:" + POSTGRES); Statement s = c.createStatement()) {
              s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
          }
        }
      }
    }
  }

  private static void run(String name, String store, Emulator emulator, HttpClient http, int requests, int workers,
      int yieldAbove) throws Exception {
    String yaml = """
        server: { port: 0 }
        upstreams: { emu: { url: "${EMU}", api-key: bench-upstream-key } }
        models: { smart: { chain: [emu/claude-a, emu/claude-b] } }
        queue:
          %s
          workers: %d
          poll: 20ms
          yield-above: %d
        """.formatted(store, workers, yieldAbove);
    try (Gateway gateway = Gateway.start(new ConfigLoader(Map.of("EMU", emulator.baseUrl())::get).parse(yaml, "bench"))) {
      String base = gateway.baseUrl().toString();
      HttpRequest interactive = HttpRequest.newBuilder(URI.create(base + "/v1/messages"))
          .header("x-api-key", "bench").header("content-type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(
              "{\"model\":\"smart\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
          .build();
      for (int i = 0; i < 300; i++) {
        http.send(interactive, HttpResponse.BodyHandlers.discarding()); // warm-up
      }
      List<Double> idle = new ArrayList<>();
      for (int i = 0; i < 1_000; i++) {
        idle.add(timed(http, interactive));
      }
      StringBuilder batch = new StringBuilder("{\"requests\":[");
      for (int i = 0; i < requests; i++) {
        batch.append(i == 0 ? "" : ",").append("{\"custom_id\":\"r").append(i)
            .append("\",\"params\":{\"model\":\"smart\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"q")
            .append(i).append("\"}]}}");
      }
      batch.append("]}");
      long start = System.nanoTime();
      HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/messages/batches"))
          .header("x-api-key", "bench").header("content-type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(batch.toString())).build(), HttpResponse.BodyHandlers.ofString());
      if (created.statusCode() != 200) {
        throw new IllegalStateException("batch refused: " + created.body());
      }
      String id = Json.tryParse(created.body()).get("id").asText();
      HttpRequest poll = HttpRequest.newBuilder(URI.create(base + "/v1/messages/batches/" + id))
          .header("x-api-key", "bench").GET().build();
      List<Double> busy = new ArrayList<>();
      JsonNode status;
      long deadline = start + Duration.ofMinutes(10).toNanos();
      do {
        for (int i = 0; i < 20; i++) {
          busy.add(timed(http, interactive));
        }
        status = Json.tryParse(http.send(poll, HttpResponse.BodyHandlers.ofString()).body());
      } while (!status.get("processing_status").asText().equals("ended") && System.nanoTime() < deadline);
      double seconds = (System.nanoTime() - start) / 1e9;
      List<Double> idleAfter = new ArrayList<>();
      for (int i = 0; i < 1_000; i++) { // idle again: how much the shared machine moved meanwhile
        idleAfter.add(timed(http, interactive));
      }
      long succeeded = status.at("/request_counts/succeeded").asLong();
      if (succeeded != requests) {
        throw new IllegalStateException("only " + succeeded + " of " + requests + " succeeded: " + status);
      }
      double p99Busy = p99(busy);
      System.out.printf(Locale.ROOT, "| %-10s | %11d | %6.0f | %8.1f s | %8.2f / %6.2f ms | %15.2f ms | %5.2fx / %5.2fx |%n",
          name, yieldAbove, requests / seconds, seconds, p99(idle), p99(idleAfter), p99Busy, p99Busy / p99(idle),
          p99Busy / p99(idleAfter));
    }
  }

  private static double timed(HttpClient http, HttpRequest request) throws Exception {
    long t = System.nanoTime();
    http.send(request, HttpResponse.BodyHandlers.discarding());
    return (System.nanoTime() - t) / 1e6;
  }

  private static double p99(List<Double> millis) {
    double[] sorted = millis.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(sorted);
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)];
  }
}
