package dev.levee.bench.sidebyside;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Levee beside the null hop, measured in one interleaved run: a {@link FixedUpstream} answering
 * at once, reached directly, through nginx ({@link NullHop}, when installed) and through Levee
 * (its own process, {@link LeveeProcess}), round after round in turn, each round the same
 * scenarios; the ratios are taken inside each round and summarised as min / median / max.
 *
 * <ul>
 *   <li>JSON at one connection: added p50 and p99 latency over direct;
 *   <li>JSON at {@code -c} connections: answers per second, CPU per request of the proxy process
 *       (from {@code /proc}, workers included);
 *   <li>the same for a stream of {@code --deltas} text deltas;
 *   <li>added time to the first delta at one connection (lean client);
 *   <li>streams' completeness: {@code -c} connections × 10 streams each, every one checked for
 *       all its deltas, its {@code message_stop} and no {@code event: error}.
 * </ul>
 *
 * <p>Run: {@code levee-bench/side-by-side} (builds the jar when missing), or {@code java -cp
 * levee-bench/target/levee-bench.jar dev.levee.bench.sidebyside.SideBySide [--rounds 3]
 * [--seconds 3] [--connections 64] [--deltas 30] [--warmup 4] [--jit-warmup 60] [--levee-jvm "-XX:+FlightRecorder ..."]
 * [--floor jetty|threads|codec|netty|netty-epoll|levee-netty[,…]] [--floor-jvm "-Xmx256m"]}. {@code --floor} adds a {@link FloorProxy} as a fourth path in the same
 * rounds (one path per mode given, named {@code floor} for one, {@code floor-<mode>} for several,
 * and the ratio of each further floor to the first): {@code jetty} is Levee's own server with a bare forwarding handler, what the server and
 * its I/O model cost with no pipeline at all, so the ratio Levee / floor is what Levee's own code
 * adds and floor / nginx what the server library costs (docs/benchmarks.md, session 11). The
 * floor's JVM gets {@code --floor-jvm}, by default the same options as Levee's: a profiling flag in
 * {@code --levee-jvm} then reaches Levee alone when {@code --floor-jvm "-Xmx256m"} is given.
 * A benchmark, not a test: nothing here runs in {@code mvn verify}.
 */
public final class SideBySide {

  private static final String CLASS_PATH = System.getProperty("java.class.path");

  private SideBySide() {}

  public static void main(String[] args) throws Exception {
    String usage = "side-by-side [--rounds 3] [--seconds 3] [--connections 64] [--deltas 30] [--warmup 4] "
        + "[--jit-warmup 60] [--levee-jvm \"-Xmx256m\"] [--floor " + String.join("|", FloorProxy.MODES)
        + "[,…]] [--floor-jvm \"-Xmx256m\"]";
    Map<String, String> opt = BenchOptions.parse(args, Map.of("rounds", "3", "seconds", "3", "connections", "64",
        "deltas", "30", "levee-jvm", "-Xmx256m", "warmup", "4", "jit-warmup", "60"), Set.of("floor", "floor-jvm"), usage);
    FloorProxy.checkModes(opt.get("floor"), usage);
    opt.putIfAbsent("floor-jvm", opt.get("levee-jvm"));
    int rounds = Integer.parseInt(opt.get("rounds"));
    Duration time = Duration.ofSeconds(Long.parseLong(opt.get("seconds")));
    int connections = Integer.parseInt(opt.get("connections"));
    int deltas = Integer.parseInt(opt.get("deltas"));
    Load load = Load.pick();
    Path nginx = NullHop.binary();

    try (FixedUpstream upstream = FixedUpstream.start(deltas);
         NullHop hop = nginx == null ? null : NullHop.start(nginx, upstream.baseUrl());
         LeveeChild levee = LeveeChild.start(CLASS_PATH, null, opt.get("levee-jvm"), LeveeProcess.class.getName(),
             upstream.baseUrl().toString());
         Floors floors = Floors.start(CLASS_PATH, opt.get("floor"), opt.get("floor-jvm"), upstream.baseUrl())) {
      Map<String, URI> bases = new LinkedHashMap<>();
      Map<String, Long> pids = new LinkedHashMap<>();
      bases.put("direct", upstream.baseUrl());
      if (hop != null) {
        bases.put("nginx", hop.baseUrl());
        pids.put("nginx", hop.pid());
      }
      for (Map.Entry<String, LeveeChild> floor : floors.byName().entrySet()) {
        bases.put(floor.getKey(), floor.getValue().baseUrl());
        pids.put(floor.getKey(), floor.getValue().process().pid());
      }
      bases.put("Levee", levee.baseUrl());
      pids.put("Levee", levee.process().pid());

      System.out.printf(Locale.ROOT, "side by side: %d rounds of %d s per scenario, c=%d, %d deltas per stream; "
          + "load: %s; null hop: %s; java %s; %d cpus; load average %s%n", rounds, time.toSeconds(), connections,
          deltas, load.name(), nginx == null ? "none (apt-get install -y nginx wrk)" : nginx,
          Runtime.version(), Runtime.getRuntime().availableProcessors(), ProcCpu.loadAverage());

      // warm-up: connection pools, and Levee's JIT until C2 has settled: it compiles through tens of
      // seconds of traffic, each compilation holding one of two vCPUs for milliseconds, and with two
      // passes the first rounds' c=1 p99 paid for it (docs/benchmarks.md, session 5)
      // then the JVMs alone until their JIT and heap have settled (session 18: after the passes
      // above Levee's C2 threads still took 15 % of its CPU and G1's concurrent cycles 8 %; after 90 s
      // of load 7 % and 1 %, and its CPU per JSON request was 25 % lower): a gateway runs for weeks
      long settle = Long.parseLong(opt.get("jit-warmup"));
      for (Map.Entry<String, URI> path : bases.entrySet()) {
        boolean jvm = path.getKey().equals("Levee") || path.getKey().startsWith("floor");
        for (long s = 0; jvm && s < settle; s += 10) {
          load.run(path.getValue(), body("fast", s % 20 != 0), connections, Duration.ofSeconds(Math.min(10, settle - s)));
        }
      }
      for (int i = 0; i < Integer.parseInt(opt.get("warmup")); i++) {
        for (Map.Entry<String, URI> path : bases.entrySet()) {
          load.run(path.getValue(), body("fast", false), 1, time);
          load.run(path.getValue(), body("fast", false), connections, time);
          load.run(path.getValue(), body("fast", true), connections, time);
          firstDelta(path.getValue(), 100);
        }
      }

      Map<String, List<Double>> m = new LinkedHashMap<>();
      for (int round = 1; round <= rounds; round++) {
        for (String path : bases.keySet()) {
          URI base = bases.get(path);
          Long pid = pids.get(path);
          Load.Run json1 = load.run(base, body("fast", false), 1, time);
          put(m, path + " json p50", json1.p50Micros());
          put(m, path + " json p99", json1.p99Micros());
          double cpu0 = pid == null ? 0 : ProcCpu.seconds(pid);
          Load.Run jsonC = load.run(base, body("fast", false), connections, time);
          double cpu1 = pid == null ? 0 : ProcCpu.seconds(pid);
          put(m, path + " json rps", jsonC.perSecond());
          put(m, path + " json cpu", (cpu1 - cpu0) / Math.max(1, jsonC.requests()) * 10_000);
          Load.Run stream1 = load.run(base, body("fast", true), 1, time);
          put(m, path + " stream p50", stream1.p50Micros());
          double cpu2 = pid == null ? 0 : ProcCpu.seconds(pid);
          Load.Run streamC = load.run(base, body("fast", true), connections, time);
          double cpu3 = pid == null ? 0 : ProcCpu.seconds(pid);
          put(m, path + " stream rps", streamC.perSecond());
          put(m, path + " stream cpu", (cpu3 - cpu2) / Math.max(1, streamC.requests()) * 10_000);
          put(m, path + " ttfd p50", firstDelta(base, 300));
          long[] complete = completeness(base, connections, 10, deltas);
          put(m, path + " complete", complete[0]);
          put(m, path + " streams", complete[1]);
          put(m, path + " failures", jsonC.failures() + streamC.failures() + json1.failures() + stream1.failures());
          System.out.printf(Locale.ROOT, "round %d %-6s json c=1 p50 %6.0f µs p99 %6.0f µs | json c=%d %7.0f/s | "
              + "stream c=1 p50 %6.0f µs | stream c=%d %6.0f/s | first delta p50 %6.0f µs | complete %d/%d%n", round,
              path, json1.p50Micros(), json1.p99Micros(), connections, jsonC.perSecond(), stream1.p50Micros(),
              connections, streamC.perSecond(), last(m, path + " ttfd p50"), complete[0], complete[1]);
        }
      }
      report(m, bases.keySet(), levee.process().pid(), connections);
    }
  }

  private static void report(Map<String, List<Double>> m, java.util.Set<String> paths, long leveePid, int c) {
    List<String> proxies = paths.stream().filter(p -> !p.equals("direct")).toList();
    System.out.printf(Locale.ROOT, "%n| measure (per round; min / median / max over rounds) | %s |%n",
        String.join(" | ", proxies));
    System.out.println("| --- |" + " --- |".repeat(proxies.size()));
    row(m, proxies, "added latency, JSON, c=1, p50 (µs)", "%.0f", p -> diff(m, p + " json p50", "direct json p50"));
    row(m, proxies, "added latency, JSON, c=1, p99 (µs)", "%.0f", p -> diff(m, p + " json p99", "direct json p99"));
    row(m, proxies, "requests/s, JSON, c=" + c, "%.0f", p -> m.get(p + " json rps"));
    row(m, proxies, "CPU seconds per 10k JSON requests", "%.2f", p -> m.get(p + " json cpu"));
    row(m, proxies, "added latency, whole stream, c=1, p50 (µs)", "%.0f", p -> diff(m, p + " stream p50", "direct stream p50"));
    row(m, proxies, "streams/s, c=" + c, "%.0f", p -> m.get(p + " stream rps"));
    row(m, proxies, "CPU seconds per 10k streams", "%.2f", p -> m.get(p + " stream cpu"));
    row(m, proxies, "added time to first delta, c=1, p50 (µs)", "%.0f", p -> diff(m, p + " ttfd p50", "direct ttfd p50"));
    row(m, proxies, "streams complete (of " + m.get("Levee streams").getFirst().longValue() + " per round)", "%.0f",
        p -> m.get(p + " complete"));
    row(m, proxies, "non-200 answers or socket errors", "%.0f", p -> m.get(p + " failures"));
    if (proxies.contains("nginx")) {
      ratios(m, "Levee", "nginx", c, true);
    }
    List<String> floors = proxies.stream().filter(p -> p.startsWith("floor")).toList();
    for (String floor : floors) {
      ratios(m, "Levee", floor, c, false);
    }
    for (String floor : floors) {
      if (proxies.contains("nginx")) {
        ratios(m, floor, "nginx", c, false);
      }
    }
    for (String floor : floors.subList(Math.min(1, floors.size()), floors.size())) {
      ratios(m, floor, floors.getFirst(), c, false);
    }
    System.out.printf(Locale.ROOT, "%nLevee RSS at the end: %.0f MiB; load average now %s%n", ProcCpu.rssMiB(leveePid),
        ProcCpu.loadAverage());
  }

  /** One table of ratios {@code a / b} taken inside each round; the goals beside Levee / nginx. */
  private static void ratios(Map<String, List<Double>> m, String a, String b, int c, boolean goals) {
    System.out.printf(Locale.ROOT, "%n| ratio %s / %s, inside each round | min | median | max |%s%n", a, b,
        goals ? " goal |" : "");
    System.out.println("| --- | ---: | ---: | ---: |" + (goals ? " --- |" : ""));
    ratio("p50 latency, JSON, c=1", m, a, b, "json p50", goals ? "added ≤ 100 µs (table above)" : null);
    ratio("p99 latency, JSON, c=1", m, a, b, "json p99", goals ? "added ≤ 2× nginx's added" : null);
    ratio("requests/s, JSON, c=" + c, m, a, b, "json rps", goals ? "≥ 0.5×" : null);
    ratio("CPU per JSON request", m, a, b, "json cpu", goals ? "≤ 3×" : null);
    ratio("streams/s, c=" + c, m, a, b, "stream rps", goals ? "" : null);
    ratio("CPU per stream", m, a, b, "stream cpu", goals ? "" : null);
    ratio("time to first delta, c=1, p50", m, a, b, "ttfd p50", goals ? "added ≤ 100 µs (table above)" : null);
  }

  private static void row(Map<String, List<Double>> m, List<String> proxies, String label, String fmt,
      java.util.function.Function<String, List<Double>> values) {
    StringBuilder s = new StringBuilder("| " + label + " |");
    for (String p : proxies) {
      List<Double> v = values.apply(p);
      s.append(' ').append(v == null ? "-" : triple(v, fmt)).append(" |");
    }
    System.out.println(s);
  }

  private static void ratio(String label, Map<String, List<Double>> m, String a, String b, String measure,
      String goal) {
    List<Double> x = m.get(a + " " + measure);
    List<Double> y = m.get(b + " " + measure);
    double[] s = new double[x.size()];
    for (int i = 0; i < s.length; i++) {
      s[i] = x.get(i) / y.get(i);
    }
    Arrays.sort(s);
    System.out.printf(Locale.ROOT, "| %s | %.2f× | %.2f× | %.2f× |%s%n", label, s[0], median(s), s[s.length - 1],
        goal == null ? "" : " " + goal + " |");
  }

  private static String triple(List<Double> v, String fmt) {
    double[] s = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return String.format(Locale.ROOT, fmt + " / " + fmt + " / " + fmt, s[0], median(s), s[s.length - 1]);
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static List<Double> diff(Map<String, List<Double>> m, String a, String b) {
    List<Double> x = m.get(a);
    List<Double> y = m.get(b);
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < x.size(); i++) {
      out.add(x.get(i) - y.get(i));
    }
    return out;
  }

  private static void put(Map<String, List<Double>> m, String key, double value) {
    m.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
  }

  private static double last(Map<String, List<Double>> m, String key) {
    return m.get(key).getLast();
  }

  static byte[] body(String model, boolean stream) {
    return body(model, stream, 0);
  }

  /** As {@link #body(String, boolean)}, the question followed by about {@code kib} KiB of English text. */
  static byte[] body(String model, boolean stream, int kib) {
    StringBuilder question = new StringBuilder("How does a levee work?");
    while (question.length() < kib * 1024) {
      question.append(" The river rose and the levee held through the night.");
    }
    return ("{\"model\":\"" + model + "\",\"max_tokens\":64,\"stream\":" + stream
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + question + "\"}]}").getBytes(StandardCharsets.UTF_8);
  }

  /** p50 of the time from sending a streamed request to receiving its first delta, in µs. */
  private static double firstDelta(URI base, int n) throws Exception {
    double[] micros = new double[n];
    try (LoopbackClient client = new LoopbackClient(base, body("fast", true))) {
      for (int i = 0; i < 50; i++) {
        client.exchange();
      }
      for (int i = 0; i < n; i++) {
        micros[i] = client.exchange().toFirstDeltaNanos() / 1e3;
      }
    }
    Arrays.sort(micros);
    return micros[n / 2];
  }

  /** {complete streams, streams}: {@code connections} connections, {@code each} streams on each. */
  private static long[] completeness(URI base, int connections, int each, int deltas) throws Exception {
    long[] complete = new long[connections];
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < connections; c++) {
      int me = c;
      threads.add(Thread.ofPlatform().start(() -> {
        try (LoopbackClient client = new LoopbackClient(base, body("fast", true))) {
          for (int i = 0; i < each; i++) {
            if (client.exchange().completeStream(deltas)) {
              complete[me]++;
            }
          }
        } catch (Exception e) {
          // counted as incomplete
        }
      }));
    }
    for (Thread t : threads) {
      t.join();
    }
    return new long[] {Arrays.stream(complete).sum(), (long) connections * each};
  }

}
