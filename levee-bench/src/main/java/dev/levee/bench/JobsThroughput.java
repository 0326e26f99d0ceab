package dev.levee.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.bench.sidebyside.LoopbackClient;
import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.jobs.JobWorkers;
import dev.levee.gateway.jobs.ThrowAwayStore;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How fast the worker pool drains a Message Batch against the instant emulator, with the embedded
 * SQLite store and with PostgreSQL (127.0.0.1:5432, database {@code test}, a throw-away schema),
 * and what a draining batch does to interactive requests. A benchmark, not a test; one machine,
 * one run, ratios taken inside each round.
 *
 * <p>Interactive load is <b>open-loop</b>: {@code POST /v1/messages} at a fixed arrival rate,
 * each request's latency counted from the instant it was due, not from when a sender got round to
 * it — a slow answer cannot hide the ones queued behind it (no coordinated omission). Senders are
 * platform threads on kept-alive loopback connections ({@link LoopbackClient}, a few µs of its
 * own). With the instant emulator behind the gateway, the round trip is the latency Levee adds.
 *
 * <p>For one gateway: a batch of {@code requests} drained with no interactive traffic (the
 * full-speed drain rate), then {@code rounds} rounds over another batch of {@code requests},
 * each an <i>idle</i> window — the batch queued but the pool held ({@link JobWorkers#hold}), so
 * nothing drains — and then a <i>draining</i> window — the pool let go — both under the same
 * interactive load. Idle and draining windows alternate every few seconds, so whatever else the
 * machine does meanwhile weighs on both alike; each round's ratio is p99 draining / p99 idle of
 * that round, and the pooled p99 of every idle and every draining sample is given too. A batch
 * that ends is replaced by a fresh one at the next round. Drain rate with interactive traffic =
 * requests finished during draining windows / their length. GC pause time of each window is shown.
 *
 * <p>Run: {@code java --enable-native-access=ALL-UNNAMED -cp levee-bench/target/levee-bench.jar
 * dev.levee.bench.JobsThroughput [requests=10000] [workers=8] [pacing=on,off]
 * [stores=sqlite,postgresql] [rounds=3] [rate=40] [window-seconds=8]}.
 */
public final class JobsThroughput {

  private static final String POSTGRES = "postgresql://127.0.0.1:5432/test?user=postgres";
  private static final byte[] INTERACTIVE =
      "{\"model\":\"smart\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
          .getBytes(StandardCharsets.UTF_8);

  private record Options(int requests, int workers, List<String> pacing, List<String> stores, int rounds, int rate,
      Duration window) {}

  /** One round's figures: p99 in ms, drain rates in jobs/s, GC pause ms in each window. */
  private record Round(double p99Idle, double p99Draining, double drainAlone, double drainWithTraffic, long gcIdle,
      long gcDraining, int samplesIdle, int samplesDraining) {
    double ratio() {
      return p99Draining / p99Idle;
    }
  }

  private JobsThroughput() {}

  public static void main(String[] args) throws Exception {
    Options o = new Options(arg(args, 0, 10_000), arg(args, 1, 8),
        List.of((args.length > 2 ? args[2] : "on,off").split(",")),
        List.of((args.length > 3 ? args[3] : "sqlite,postgresql").split(",")), arg(args, 4, 3), arg(args, 5, 40),
        Duration.ofSeconds(arg(args, 6, 8)));
    System.out.printf(Locale.ROOT, "jobs drained against the instant emulator (java %s, %d cpus): batches of %d, "
        + "%d workers; interactive POST /v1/messages open-loop at %d/s, %d s windows, %d rounds%n%n",
        Runtime.version(), Runtime.getRuntime().availableProcessors(), o.requests(), o.workers(), o.rate(),
        o.window().toSeconds(), o.rounds());
    System.out.println("| store      | pacing | round | p99 idle | p99 draining | ratio | jobs/s alone | jobs/s with traffic "
        + "| gc ms idle / draining | samples |");
    System.out.println("| ---------- | ------ | ----: | -------: | -----------: | ----: | -----------: | ------------------: "
        + "| --------------------: | ------: |");
    try (Emulator emulator = Emulator.start(EmulatorOptions.builder().timeToFirstToken(Duration.ZERO)
            .deltaDelay(Duration.ZERO).build());
         HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      List<String> summaries = new ArrayList<>();
      for (String store : o.stores()) {
        for (String pacing : o.pacing()) {
          if (store.equals("sqlite")) {
            try (ThrowAwayStore folder = ThrowAwayStore.create("levee-bench-jobs")) {
              summaries.add(run("sqlite", pacing, "folder: '" + folder.folder() + "'", emulator, http, o));
            }
            continue;
          }
          String schema = "levee_bench_" + System.nanoTime();
          try {
            summaries.add(run("postgresql", pacing, "store: \"" + POSTGRES + "\"\n  schema: " + schema, emulator,
                http, o));
          } finally {
            try (Connection c = DriverManager.getConnection("jdbc:" + POSTGRES); Statement s = c.createStatement()) {
              s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
          }
        }
      }
      System.out.println();
      System.out.println("| store      | pacing | p99 ratio min / median / max | pooled p99 idle → draining "
          + "| jobs/s alone | jobs/s with traffic |");
      System.out.println("| ---------- | ------ | ---------------------------: | -------------------------: "
          + "| -----------: | ------------------: |");
      summaries.forEach(System.out::println);
    }
  }

  private static int arg(String[] args, int i, int otherwise) {
    return args.length > i ? Integer.parseInt(args[i]) : otherwise;
  }

  private static String run(String name, String pacing, String store, Emulator emulator, HttpClient http, Options o)
      throws Exception {
    String yaml = """
        server: { port: 0 }
        upstreams: { emu: { url: "${EMU}", api-key: bench-upstream-key } }
        models: { smart: { chain: [emu/claude-a, emu/claude-b] } }
        queue:
          %s
          workers: %d
          pacing: { enabled: %s }
        """.formatted(store, o.workers(), pacing.equals("on"));
    try (Gateway gateway = Gateway.start(new ConfigLoader(Map.of("EMU", emulator.baseUrl())::get).parse(yaml, "bench"))) {
      URI base = gateway.baseUrl();
      JobWorkers workers = gateway.work().workers();
      Batches batches = new Batches(http, base);
      OpenLoop load = new OpenLoop(base, o.rate());
      load.run(Duration.ofSeconds(3), () -> false); // warm-up: the interactive path,
      batches.drain(Math.min(2_000, o.requests()));   // and the job path
      Thread.sleep(1_500); // past pacing's shared-for: nothing interactive around
      double alone = o.requests() / batches.drain(o.requests());

      List<Round> rounds = new ArrayList<>();
      List<Double> allIdle = new ArrayList<>();
      List<Double> allDraining = new ArrayList<>();
      double drainingSeconds = 0;
      long drained = 0;
      workers.hold(true);
      String batch = null;
      long batchEndsAt = 0; // the pool's finished count at which the current batch is done
      for (int r = 1; r <= o.rounds(); r++) {
        if (batch == null || workers.finished() >= batchEndsAt) { // a fresh batch, held until the draining window
          if (batch != null) {
            batches.awaitEnd(batch, o.requests());
          }
          batchEndsAt = workers.finished() + o.requests();
          batch = batches.create(o.requests());
        }
        long gc = gcMillis();
        List<Double> idle = load.run(o.window(), () -> false);
        long gcIdle = gcMillis() - gc;

        // progress is read in-process (JobWorkers.finished): polling the batch over HTTP would load the
        // gateway and its store only in the draining windows
        long before = workers.finished();
        long ends = batchEndsAt;
        long start = System.nanoTime();
        gc = gcMillis();
        workers.hold(false);
        List<Double> busy = load.run(o.window(), () -> workers.finished() >= ends);
        workers.hold(true);
        long gcDraining = gcMillis() - gc;
        double seconds = (System.nanoTime() - start) / 1e9;
        long done = workers.finished() - before;
        drainingSeconds += seconds;
        drained += done;

        Round round = new Round(p99(idle), p99(busy), alone, done / seconds, gcIdle, gcDraining, idle.size(),
            busy.size());
        rounds.add(round);
        allIdle.addAll(idle);
        allDraining.addAll(busy);
        System.out.printf(Locale.ROOT, "| %-10s | %-6s | %5d | %5.2f ms | %9.2f ms | %4.2fx | %12.0f | %19.0f "
            + "| %9d / %9d | %3d/%3d |%n", name, pacing, r, round.p99Idle(), round.p99Draining(), round.ratio(),
            round.drainAlone(), round.drainWithTraffic(), round.gcIdle(), round.gcDraining(), round.samplesIdle(),
            round.samplesDraining());
      }
      workers.hold(false);
      batches.awaitEnd(batch, o.requests());
      double[] ratios = rounds.stream().mapToDouble(Round::ratio).sorted().toArray();
      return String.format(Locale.ROOT, "| %-10s | %-6s | %6.2fx / %5.2fx / %5.2fx | %8.2f → %6.2f ms (%4.2fx) "
          + "| %12.0f | %19.0f |", name, pacing, ratios[0], median(ratios), ratios[ratios.length - 1], p99(allIdle),
          p99(allDraining), p99(allDraining) / p99(allIdle), alone, drained / drainingSeconds);
    }
  }

  /** Interactive requests at a fixed arrival rate from a pool of senders, latency from each request's due time. */
  private static final class OpenLoop {
    private final URI base;
    private final long periodNanos;
    private final ThreadLocal<LoopbackClient> clients;
    private final ExecutorService senders = Executors.newFixedThreadPool(16, Thread.ofPlatform().daemon().factory());

    OpenLoop(URI base, int rate) {
      this.base = base;
      this.periodNanos = 1_000_000_000L / rate;
      this.clients = ThreadLocal.withInitial(this::connect);
    }

    private LoopbackClient connect() {
      try {
        return new LoopbackClient(base, INTERACTIVE);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    /** Sends for {@code time} or until {@code stop}; returns each answer's latency in ms. */
    List<Double> run(Duration time, BooleanSupplier stop) throws InterruptedException {
      List<Double> millis = java.util.Collections.synchronizedList(new ArrayList<>());
      AtomicInteger failed = new AtomicInteger();
      java.util.concurrent.Phaser pending = new java.util.concurrent.Phaser(1);
      long start = System.nanoTime();
      long end = start + time.toNanos();
      for (long due = start; due < end && !stop.getAsBoolean(); due += periodNanos) {
        long wait = due - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        long dueAt = due;
        pending.register();
        senders.execute(() -> {
          try {
            int status = clients.get().exchange().status();
            if (status != 200) {
              failed.incrementAndGet();
            }
            millis.add((System.nanoTime() - dueAt) / 1e6);
          } catch (Exception e) {
            clients.remove();
            failed.incrementAndGet();
          } finally {
            pending.arriveAndDeregister();
          }
        });
      }
      pending.arriveAndAwaitAdvance();
      if (failed.get() > 0) {
        throw new IllegalStateException(failed.get() + " interactive requests failed");
      }
      return new ArrayList<>(millis);
    }
  }

  /** The Batches API of one gateway. */
  private record Batches(HttpClient http, URI base) {

    String create(int requests) throws Exception {
      StringBuilder batch = new StringBuilder("{\"requests\":[");
      for (int i = 0; i < requests; i++) {
        batch.append(i == 0 ? "" : ",").append("{\"custom_id\":\"r").append(i)
            .append("\",\"params\":{\"model\":\"smart\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"q")
            .append(i).append("\"}]}}");
      }
      batch.append("]}");
      HttpResponse<String> created = http.send(HttpRequest.newBuilder(base.resolve("/v1/messages/batches"))
          .header("x-api-key", "bench").header("content-type", "application/json")
          .header("anthropic-version", "2023-06-01")
          .POST(HttpRequest.BodyPublishers.ofString(batch.toString())).build(), HttpResponse.BodyHandlers.ofString());
      if (created.statusCode() != 200) {
        throw new IllegalStateException("batch refused: " + created.body());
      }
      return Json.tryParse(created.body()).get("id").asText();
    }

    JsonNode status(String id) throws Exception {
      return Json.tryParse(http.send(HttpRequest.newBuilder(base.resolve("/v1/messages/batches/" + id))
          .header("x-api-key", "bench").header("anthropic-version", "2023-06-01").GET().build(),
          HttpResponse.BodyHandlers.ofString()).body());
    }

    /** Waits for batch {@code id} to end with every one of its {@code requests} succeeded. */
    void awaitEnd(String id, int requests) {
      BatchWatch watch = new BatchWatch(this, id);
      watch.run();
      if (watch.succeeded() != requests) {
        throw new IllegalStateException("only " + watch.succeeded() + " of " + requests + " succeeded");
      }
    }

    /** Creates a batch of {@code requests} and waits for its end; returns the seconds it took. */
    double drain(int requests) throws Exception {
      String id = create(requests);
      long start = System.nanoTime();
      BatchWatch watch = new BatchWatch(this, id);
      watch.run();
      if (watch.succeeded() != requests) {
        throw new IllegalStateException("only " + watch.succeeded() + " of " + requests + " succeeded");
      }
      return (System.nanoTime() - start) / 1e9;
    }
  }

  /** Polls one batch every 50 ms until it ends; its succeeded count. */
  private static final class BatchWatch implements Runnable {
    private final Batches batches;
    private final String id;
    private volatile boolean ended;
    private volatile long succeeded;

    BatchWatch(Batches batches, String id) {
      this.batches = batches;
      this.id = id;
    }

    /** Polls until the batch ends. */
    @Override
    public void run() {
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      try {
        while (true) {
          JsonNode status = batches.status(id);
          succeeded = status.at("/request_counts/succeeded").asLong();
          ended = status.get("processing_status").asText().equals("ended");
          if (ended || System.nanoTime() > deadline) {
            break;
          }
          Thread.sleep(50);
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      if (!ended) {
        throw new IllegalStateException("batch " + id + " did not end within 5 minutes");
      }
    }


    long succeeded() {
      return succeeded;
    }
  }

  /** GC time so far, concurrent cycles excluded (pauses only), in ms. */
  private static long gcMillis() {
    long ms = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (!gc.getName().contains("Concurrent")) {
        ms += Math.max(0, gc.getCollectionTime());
      }
    }
    return ms;
  }

  private static double p99(List<Double> millis) {
    double[] sorted = millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)];
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
