package dev.levee.bench.sidebyside;

import dev.levee.bench.sidebyside.SoakProbe.Sample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/**
 * Does anything in a long-lived gateway grow without bound? A soak: the fault-injecting emulator
 * ({@link SoakEmulator}) and Levee ({@link SoakGateway}: several aliases — healthy, an absorbed
 * fault, recovered stream cuts, a dead target, one routed by score — and three features) each in
 * a JVM of its own, Levee's as the launcher runs it ({@link LeveeProcess#LAUNCHER_FLAGS}, {@code
 * --levee-jvm}, {@code -Xmx256m} by default); then {@code --minutes} of mixed traffic ({@link
 * SoakTraffic}) at {@code --rate} operations a second (reached over the first {@code --ramp}
 * seconds), and every {@code --sample} seconds a
 * reading of Levee's process ({@link SoakProbe}): live heap after a full GC, platform and virtual
 * threads, open files, RSS, {@code /metrics} series, the job store on disk.
 *
 * <p>The verdict fits a line through the readings of the second half of the run (the first is
 * warm-up: the JIT, lazily made pools, the 8 MiB cache filling) and gives each measure's growth
 * per hour, flagging one that keeps growing: a slope whose growth over the fitted span is above a
 * measure's noise floor with the line explaining most of the variance ({@code r² ≥ 0.5}). The
 * class histograms and thread dumps taken at half time and at the end (in {@code --out}) are
 * diffed: the classes and thread groups that grew most are printed, which is where a leak is
 * found.
 *
 * <p>Run: {@code levee-bench/run Soak [--minutes 10] [--rate 80] [--ramp 60] [--tenants 200] [--sample 30]
 * [--levee-jvm "-Xmx256m"] [--max-in-flight 400] [--out DIR]}. A benchmark, not a test.
 */
public final class Soak {

  private Soak() {}

  /** A measure of a {@link Sample}, the growth over the fitted span under which it counts as flat, and its unit. */
  private record Measure(String name, ToDoubleFunction<Sample> value, double floor, String unit) {}

  private static final List<Measure> MEASURES = List.of(
      new Measure("heap after GC", Sample::heapMiB, 4, "MiB"),
      new Measure("platform threads", Sample::threads, 6, "threads"), // Jetty's pool: spare threads come and go
      new Measure("virtual threads", Sample::virtualThreads, 10, "threads"), // the requests in flight
      new Measure("open files", Sample::fds, 16, "fds"), // kept-alive client and upstream connections
      new Measure("/metrics series", Sample::series, 1, "series"),
      new Measure("RSS", Sample::rssMiB, 16, "MiB"));

  /** The share of the maximum heap in use after a full GC above which the verdict says HIGH. */
  private static final double HEAP_HIGH = 0.5;

  public static void main(String[] args) throws Exception {
    String usage = "Soak [--minutes 10] [--rate 80] [--ramp 60] [--tenants 200] [--sample 30] "
        + "[--levee-jvm \"-Xmx256m\"] [--max-in-flight 400] [--out DIR]";
    Map<String, String> opt = BenchOptions.parse(args, Map.of("minutes", "10", "rate", "80", "ramp", "60",
        "tenants", "200", "sample", "30", "levee-jvm", "-Xmx256m", "max-in-flight", "400"), Set.of("out"), usage);
    double minutes = Double.parseDouble(opt.get("minutes"));
    double rate = Double.parseDouble(opt.get("rate"));
    int sampleSeconds = Integer.parseInt(opt.get("sample"));
    BenchOptions.check(minutes > 0 && rate > 0 && rate <= 1000, "--minutes > 0, 0 < --rate <= 1000", usage);
    BenchOptions.check(Double.parseDouble(opt.get("ramp")) >= 0, "--ramp >= 0", usage);
    BenchOptions.check(sampleSeconds >= 5 && minutes * 60 >= 4 * sampleSeconds, "--sample >= 5 s, 4 samples at least",
        usage);
    Path out = Path.of(opt.getOrDefault("out", "/tmp/levee-soak-" + Instant.now().getEpochSecond()));
    Path work = Files.createDirectories(out.resolve("gateway"));

    try (LeveeChild emulator = LeveeChild.upstream("-Xmx512m", "EMULATOR ", SoakEmulator.class.getName());
         LeveeChild levee = LeveeChild.start(System.getProperty("java.class.path"), work.toFile(), opt.get("levee-jvm"),
             SoakGateway.class.getName(), emulator.baseUrl().toString())) {
      drain(levee.process());
      long pid = levee.process().pid();
      SoakProbe probe = new SoakProbe(pid, levee.baseUrl(), work.resolve("levee-data"), out);
      SoakTraffic traffic = new SoakTraffic(levee.baseUrl(), rate, Double.parseDouble(opt.get("ramp")),
          Integer.parseInt(opt.get("tenants")), Integer.parseInt(opt.get("max-in-flight")));
      System.out.printf(Locale.ROOT, "soak: %.0f min at %.0f operations/s (after a %s s ramp), %s tenants (and one "
          + "in ten new), a reading every %d s; Levee pid %d, JVM %s %s; out %s; java %s, %d cpus, load average %s%n",
          minutes, rate, opt.get("ramp"), opt.get("tenants"), sampleSeconds, pid, LeveeProcess.LAUNCHER_FLAGS,
          opt.get("levee-jvm"), out, Runtime.version(), Runtime.getRuntime().availableProcessors(), ProcCpu.loadAverage());
      System.out.println("  min  heap-MiB  threads  virtual  fds  rss-MiB  series  store-MiB   ops/s  unexpected  "
          + "behind  load");

      List<Sample> samples = new ArrayList<>();
      Map<String, long[]> halfHistogram = null;
      Map<String, Integer> halfThreads = null;
      Set<String> halfSeries = null;
      long start = System.nanoTime();
      long lastDone = 0;
      traffic.start();
      for (int i = 1; ; i++) {
        long due = start + i * sampleSeconds * 1_000_000_000L;
        Thread.sleep(Math.max(0, (due - System.nanoTime()) / 1_000_000));
        double at = (System.nanoTime() - start) / 60e9;
        Sample s = probe.take(at);
        samples.add(s);
        long done = traffic.done();
        System.out.printf(Locale.ROOT, "%5.1f  %8.1f  %7d  %7d  %3d  %7.0f  %6d  %9.2f  %6.0f  %10d  %6d  %s%n",
            at, s.heapMiB(), s.threads(), s.virtualThreads(), s.fds(), s.rssMiB(), s.series(), s.storeMiB(),
            (done - lastDone) / (double) sampleSeconds, traffic.unexpected(), traffic.behind(), ProcCpu.loadAverage());
        lastDone = done;
        if (halfHistogram == null && at >= minutes / 2) {
          halfHistogram = probe.histogram("half");
          halfThreads = probe.threadGroups("threads-half.json");
          halfSeries = probe.seriesNames();
        }
        if (at >= minutes - sampleSeconds / 120.0) {
          break;
        }
      }
      Map<String, long[]> endHistogram = probe.histogram("end");
      Map<String, Integer> endThreads = probe.threadGroups("threads-end.json");
      Set<String> endSeries = probe.seriesNames();
      traffic.stop(60);
      Thread.sleep(5_000); // the gateway's bookkeeping of the last requests
      Sample quiet = probe.take((System.nanoTime() - start) / 60e9);

      System.out.printf(Locale.ROOT, "%nafter the traffic stopped (%d in flight at the client): heap %.1f MiB, "
          + "%d platform threads, %d virtual, %d open files, RSS %.0f MiB, %d series%n", traffic.inFlight(),
          quiet.heapMiB(), quiet.threads(), quiet.virtualThreads(), quiet.fds(), quiet.rssMiB(), quiet.series());
      verdict(samples, minutes, probe.maxHeapMiB());
      printHistogramGrowth(halfHistogram, endHistogram);
      printThreadGrowth(halfThreads, endThreads);
      printNewSeries(halfSeries, endSeries);
      System.out.printf(Locale.ROOT, "%noperations: %d, behind the rate (skipped): %d, unexpected answers: %d%n",
          traffic.done(), traffic.behind(), traffic.unexpected());
      traffic.outcomes().forEach((k, v) -> System.out.printf(Locale.ROOT, "  %8d  %s%n", v, k));
      traffic.examples().forEach(e -> System.out.println("  unexpected: " + e));
    }
  }

  /**
   * The fit over the second half, per measure: growth per hour, and whether it keeps growing; and
   * whether the heap after GC, growing or not, fills most of the maximum: state that is bounded
   * but does not fit the heap Levee runs with.
   */
  private static void verdict(List<Sample> samples, double minutes, double maxHeapMiB) {
    List<Sample> second = samples.stream().filter(s -> s.minutes() >= minutes / 2).toList();
    double span = second.getLast().minutes() - second.getFirst().minutes();
    System.out.printf(Locale.ROOT, "%nverdict: a line fitted through the %d readings from %.1f to %.1f min "
        + "(the first half is warm-up)%n", second.size(), second.getFirst().minutes(), second.getLast().minutes());
    System.out.println("| measure | first | last | growth per hour | r² | verdict |");
    System.out.println("| --- | ---: | ---: | ---: | ---: | --- |");
    List<String> growing = new ArrayList<>();
    for (Measure m : MEASURES) {
      double[] fit = fit(second, m.value());
      double perHour = fit[0] * 60;
      double overSpan = fit[0] * span;
      boolean grows = second.size() >= 3 && overSpan > m.floor() && fit[1] >= 0.5;
      if (grows) {
        growing.add(m.name());
      }
      System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %+.1f %s | %.2f | %s |%n", m.name(),
          m.value().applyAsDouble(second.getFirst()), m.value().applyAsDouble(second.getLast()), perHour, m.unit(),
          fit[1], grows ? "GROWS (" + String.format(Locale.ROOT, "%+.0f %s a day", perHour * 24, m.unit()) + ")" : "flat");
    }
    System.out.println(growing.isEmpty() ? "nothing keeps growing" : "keeps growing: " + String.join(", ", growing));
    double[] heaps = second.stream().mapToDouble(Sample::heapMiB).sorted().toArray();
    double median = heaps[heaps.length / 2];
    System.out.printf(Locale.ROOT, "heap after GC in the second half: median %.1f MiB, %.0f %% of the maximum "
        + "(%.0f MiB)%s%n", median, 100 * median / maxHeapMiB, maxHeapMiB,
        median > HEAP_HIGH * maxHeapMiB ? String.format(Locale.ROOT, ": HIGH (over %.0f %%: what Levee keeps does not "
            + "leave the heap room for a burst)", 100 * HEAP_HIGH) : "");
  }


  /** Least squares of the measure over minutes: {slope per minute, r²}. */
  static double[] fit(List<Sample> samples, ToDoubleFunction<Sample> f) {
    int n = samples.size();
    double mx = samples.stream().mapToDouble(Sample::minutes).average().orElse(0);
    double my = samples.stream().mapToDouble(f).average().orElse(0);
    double sxy = 0;
    double sxx = 0;
    double syy = 0;
    for (Sample s : samples) {
      double dx = s.minutes() - mx;
      double dy = f.applyAsDouble(s) - my;
      sxy += dx * dy;
      sxx += dx * dx;
      syy += dy * dy;
    }
    if (n < 2 || sxx == 0) {
      return new double[] {0, 0};
    }
    double slope = sxy / sxx;
    return new double[] {slope, syy == 0 ? 0 : sxy * sxy / (sxx * syy)};
  }

  private static void printHistogramGrowth(Map<String, long[]> half, Map<String, long[]> end) {
    System.out.println("\nclasses that grew most from half time to the end (bytes, instances), heap after a full GC:");
    Set<String> names = new TreeSet<>(end.keySet());
    names.addAll(half.keySet());
    names.stream()
        .map(n -> Map.entry(n, new long[] {get(end, n, 1) - get(half, n, 1), get(end, n, 0) - get(half, n, 0)}))
        .sorted(Comparator.comparingLong(e -> -e.getValue()[0]))
        .limit(12)
        .forEach(e -> System.out.printf(Locale.ROOT, "  %+10d B  %+8d  %s%n", e.getValue()[0], e.getValue()[1],
            e.getKey()));
  }

  private static long get(Map<String, long[]> histogram, String name, int i) {
    long[] row = histogram.get(name);
    return row == null ? 0 : row[i];
  }

  private static void printThreadGrowth(Map<String, Integer> half, Map<String, Integer> end) {
    System.out.println("\nthread groups from half time to the end (count at half → at end; changed ones, "
        + "virtual threads by the innermost Levee or Jetty frame):");
    Set<String> names = new TreeSet<>(end.keySet());
    names.addAll(half.keySet());
    names.stream().filter(n -> !half.getOrDefault(n, 0).equals(end.getOrDefault(n, 0)))
        .forEach(n -> System.out.printf(Locale.ROOT, "  %4d → %4d  %s%n", half.getOrDefault(n, 0),
            end.getOrDefault(n, 0), n));
  }

  private static void printNewSeries(Set<String> half, Set<String> end) {
    List<String> added = end.stream().filter(s -> !half.contains(s)).toList();
    List<String> gone = half.stream().filter(s -> !end.contains(s)).toList();
    System.out.printf(Locale.ROOT, "%n/metrics series from half time to the end: %d new, %d gone%n", added.size(),
        gone.size());
    added.stream().limit(15).forEach(s -> System.out.println("  new: " + s));
    gone.stream().limit(5).forEach(s -> System.out.println("  gone: " + s));
  }

  /** Reads what the child prints after its ready line, so that its output never fills the pipe. */
  private static void drain(Process process) {
    Thread.ofPlatform().daemon().name("soak-drain").start(() -> {
      try {
        process.getInputStream().transferTo(System.out);
      } catch (IOException e) {
        // gone
      }
    });
  }

}
