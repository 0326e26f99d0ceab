package dev.levee.bench.sidebyside;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Ten thousand concurrent slow streams, directly and through Levee, in one interleaved run
 * (issue 11: "10,000 concurrent slow streams complete in ≤ 1.1× the direct time with {@code
 * -Xmx256m}, RSS ≤ 400 MB").
 *
 * <p>Three processes besides this one's client: a {@link SlowUpstream} (its own JVM: every
 * stream lasts {@code --seconds}, {@code --deltas} deltas evenly spaced) and Levee ({@link
 * LeveeProcess}, its own JVM with {@code --levee-jvm}, one alias on that upstream). Each round
 * opens {@code --streams} streams at once with the one-thread {@link StreamCrowd} client, first
 * directly against the upstream, then through Levee, and waits for every one to end; it prints
 * the wall time of each (first connect to the end of the last stream), the ratio Levee / direct
 * inside the round, how many streams were complete (status 200, every delta, {@code
 * message_stop}, no {@code event: error}), and Levee's peak RSS ({@code VmRSS} sampled every
 * 100 ms), CPU seconds and open files during the round.
 *
 * <p>Levee holds two sockets per stream (client and upstream): {@code --streams 10000} needs a
 * file limit of about 20,100 in Levee's process ({@code levee-bench/streams} raises the soft
 * limit to the hard one).
 *
 * <p>Run: {@code levee-bench/streams [--streams 10000] [--seconds 10] [--deltas 20] [--rounds 3]
 * [--levee-jvm "-Xmx256m"] [--floor jetty|threads|codec|netty|netty-epoll|levee-netty]}; {@code --floor} measures a {@link
 * FloorProxy} (no pipeline) in Levee's place (docs/benchmarks.md session 10); a quick look: {@code --streams 1000 --seconds 3}. A benchmark, not
 * a test.
 */
public final class ManyStreams {

  private ManyStreams() {}

  public static void main(String[] args) throws Exception {
    String usage = "streams [--streams 10000] [--seconds 10] [--deltas 20] [--rounds 3] [--warmup 1] [--warmup-streams 1000] "
        + "[--levee-jvm \"-Xmx256m\"] [--ramp 0] [--levee-server \"max-concurrent: …\"] [--floor "
        + String.join("|", FloorProxy.MODES) + "]";
    Map<String, String> opt = BenchOptions.parse(args, Map.of("streams", "10000", "seconds", "10", "deltas", "20",
        "rounds", "3", "warmup", "1", "warmup-streams", "1000", "levee-jvm", "-Xmx256m", "ramp", "0"), Set.of("floor", "levee-server"), usage);
    BenchOptions.check(!opt.getOrDefault("floor", "").contains(","), "--floor takes one mode here", usage);
    FloorProxy.checkModes(opt.get("floor"), usage);
    int n = Integer.parseInt(opt.get("streams"));
    double seconds = Double.parseDouble(opt.get("seconds"));
    int deltas = Integer.parseInt(opt.get("deltas"));
    int rounds = Integer.parseInt(opt.get("rounds"));
    int warmups = Integer.parseInt(opt.get("warmup"));
    int warmupStreams = Math.min(n, Integer.parseInt(opt.get("warmup-streams")));
    int ramp = Integer.parseInt(opt.get("ramp")); // new connections a second on both paths; 0: all at once
    // one client key, so one tenant: admit every stream (the defaults admit 4,096, 2,048 per tenant)
    // and the same listen backlog as the upstream's (the kernel caps both at net.core.somaxconn), so
    // neither path loses more SYNs than the other to a full accept queue
    String server = opt.getOrDefault("levee-server", ("max-concurrent: %d, max-concurrent-per-tenant: %d, "
        + "accept-queue: %d").formatted(Math.max(n, 4096), Math.max(n, 4096), SlowUpstream.ACCEPT_QUEUE));
    Duration limit = Duration.ofMillis((long) (seconds * 3_000) + 60_000);

    String classPath = System.getProperty("java.class.path");
    try (LeveeChild upstream = LeveeChild.upstream("-Xmx1g", "UPSTREAM ", SlowUpstream.class.getName(),
            Integer.toString(deltas), Double.toString(seconds));
         LeveeChild levee = opt.containsKey("floor")
             ? LeveeChild.start(classPath, null, opt.get("levee-jvm"), FloorProxy.class.getName(), opt.get("floor"),
                 upstream.baseUrl().toString())
             : LeveeChild.start(classPath, null, opt.get("levee-jvm"), LeveeProcess.class.getName(),
                 upstream.baseUrl().toString(), server)) {
      Map<String, URI> paths = new LinkedHashMap<>();
      paths.put("direct", upstream.baseUrl());
      paths.put("Levee", levee.baseUrl());
      System.out.printf(Locale.ROOT, "many streams: %d concurrent streams of %.1f s (%d deltas), opened %s, %d rounds "
          + "after %d warm-up of %d streams; Levee JVM %s, server {%s}; open files allowed here %s; java %s, %d cpus, load average "
          + "%s%n", n, seconds, deltas, ramp > 0 ? ramp + " a second" : "at once", rounds, warmups, warmupStreams, opt.get("levee-jvm"), server, openFilesLimit(), Runtime.version(),
          Runtime.getRuntime().availableProcessors(), ProcCpu.loadAverage());

      for (int w = 0; w < warmups; w++) { // JIT, Levee's pool; a smaller crowd
        for (Map.Entry<String, URI> path : paths.entrySet()) {
          StreamCrowd.Result r = new StreamCrowd(path.getValue(), StreamCrowd.body(), deltas).run(warmupStreams, limit);
          System.out.printf(Locale.ROOT, "warm-up %-6s %s%n", path.getKey(), StreamCrowd.describe(r));
        }
      }

      List<double[]> ratios = new ArrayList<>(); // {ratio, rss, cpu, complete}
      for (int round = 1; round <= rounds; round++) {
        StreamCrowd.Result direct = new StreamCrowd(upstream.baseUrl(), StreamCrowd.body(), deltas).run(n, ramp, limit);
        System.out.printf(Locale.ROOT, "round %d direct %s%n", round, StreamCrowd.describe(direct));
        double cpu0 = ProcCpu.seconds(levee.process().pid());
        Sampler sampler = Sampler.start(levee.process().pid());
        StreamCrowd.Result through = new StreamCrowd(levee.baseUrl(), StreamCrowd.body(), deltas).run(n, ramp, limit);
        sampler.stop();
        double cpu = ProcCpu.seconds(levee.process().pid()) - cpu0;
        System.out.printf(Locale.ROOT, "round %d Levee  %s%n", round, StreamCrowd.describe(through));
        double ratio = through.wallSeconds() / direct.wallSeconds();
        System.out.printf(Locale.ROOT, "round %d: Levee / direct wall time %.3f× (%.2f s / %.2f s); Levee peak RSS "
            + "%.0f MiB, CPU %.1f s, peak open files %d; load average %s%n", round, ratio, through.wallSeconds(),
            direct.wallSeconds(), sampler.peakRssMiB, cpu, sampler.peakFiles, ProcCpu.loadAverage());
        if (StreamCrowd.firstError.get() != null) {
          System.out.println("first error event: " + StreamCrowd.firstError.getAndSet(null));
        }
        ratios.add(new double[] {ratio, sampler.peakRssMiB, cpu, through.complete(), direct.complete()});
      }
      System.out.printf(Locale.ROOT, "%n| %d streams × %.0f s, %d deltas | min | median | max | goal |%n", n, seconds,
          deltas);
      System.out.println("| --- | ---: | ---: | ---: | --- |");
      row("wall time, Levee / direct", ratios, 0, "%.3f×", "≤ 1.1×");
      row("Levee peak RSS (MiB)", ratios, 1, "%.0f", "≤ 400 MB (381 MiB)");
      row("Levee CPU seconds", ratios, 2, "%.1f", "");
      row("streams complete through Levee (of " + n + ")", ratios, 3, "%.0f", "all");
      row("streams complete direct (of " + n + ")", ratios, 4, "%.0f", "all");
      System.out.printf(Locale.ROOT, "Levee VmHWM (peak RSS over its life, warm-up included): %.0f MiB%n",
          status(levee.process().pid(), "VmHWM:") / 1024.0);
    }
  }

  private static void row(String label, List<double[]> rounds, int i, String fmt, String goal) {
    double[] v = rounds.stream().mapToDouble(r -> r[i]).sorted().toArray();
    System.out.printf(Locale.ROOT, "| %s | " + fmt + " | " + fmt + " | " + fmt + " | %s |%n", label, v[0],
        v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2, v[v.length - 1], goal);
  }

  /** Levee's resident memory and open files, sampled while a round runs. */
  private static final class Sampler {
    private final Thread thread;
    private volatile boolean running = true;
    private volatile double peakRssMiB;
    private volatile long peakFiles;

    private Sampler(long pid) {
      thread = Thread.ofPlatform().daemon().name("levee-sampler").start(() -> {
        for (int tick = 0; running; tick++) {
          peakRssMiB = Math.max(peakRssMiB, status(pid, "VmRSS:") / 1024.0);
          if (tick % 10 == 0) {
            peakFiles = Math.max(peakFiles, openFiles(pid));
          }
          try {
            Thread.sleep(100);
          } catch (InterruptedException e) {
            return;
          }
        }
      });
    }

    static Sampler start(long pid) {
      return new Sampler(pid);
    }

    void stop() throws InterruptedException {
      running = false;
      thread.join();
    }
  }

  /** A field of {@code /proc/<pid>/status} in kB; 0 when absent. */
  static long status(long pid, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException e) {
      // gone
    }
    return 0;
  }

  private static long openFiles(long pid) {
    try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      return fds.count();
    } catch (IOException e) {
      return 0;
    }
  }

  private static String openFilesLimit() {
    try {
      return Files.readAllLines(Path.of("/proc/self/limits")).stream().filter(l -> l.startsWith("Max open files"))
          .map(l -> l.replaceAll("^Max open files\\s+", "").replaceAll("\\s+files\\s*$", "").replaceAll("\\s+", "/"))
          .findFirst().orElse("?");
    } catch (IOException e) {
      return "?";
    }
  }

}
