package dev.levee.bench.sidebyside;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Two builds of Levee, A and B, running at the same time on one {@link FixedUpstream}, loaded in
 * turn in short slices — A, B, A, B — so both see the same state of the box; prints each one's
 * CPU per request and p50 latency in every slice and the ratios B / A of each pair (min / median /
 * max). {@code --prompt-kib N} makes the question N KiB of text (default 0: the side-by-side's
 * short question), for what a build does per byte of the request.
 *
 * <p>Why slices: on a shared virtual machine the CPU a request costs drifts by 20–40 % over minutes
 * for every JVM at once, while nginx barely moves (docs/benchmarks.md, session 19). Alternating
 * whole runs of one build and then the other measures that drift as often as the change; slices a
 * few seconds apart, with both JVMs warm and alive, cancel it.
 *
 * <p>Run: {@code levee-bench/run TwoBuilds --a <dir> --b <dir> [--slices 12] [--seconds 6]
 * [--a-jvm "-Xmx256m"] [--b-jvm "-Xmx256m"] [--connections 64] [--deltas 30] [--prompt-kib 0]}, where each dir holds a
 * build's {@code levee-bench.jar} and its {@code lib/} (copied from {@code levee-bench/target}); the
 * same dir twice with two {@code --*-jvm} compares JVM options (each replaces its default, {@code
 * -Xmx256m}, after the launcher's flags). A fixed warm-up first (each build 20 s of JSON and 8 s of
 * streams, twice: ~2 min), then {@code --slices} pairs of JSON slices and half as many (at least 3)
 * of streams. An unknown option is refused. A benchmark, not a test.
 */
public final class TwoBuilds {

  private TwoBuilds() {}

  public static void main(String[] args) throws Exception {
    String usage = "TwoBuilds --a <dir with levee-bench.jar and lib/> --b <dir> [--slices 12] [--seconds 6] "
        + "[--connections 64] [--a-jvm \"-Xmx256m\"] [--b-jvm \"-Xmx256m\"] [--deltas 30] [--prompt-kib 0]";
    Map<String, String> opt = BenchOptions.parse(args, Map.of("slices", "12", "seconds", "6", "connections", "64",
        "a-jvm", "-Xmx256m", "b-jvm", "-Xmx256m", "deltas", "30", "prompt-kib", "0"), Set.of("a", "b"), usage);
    BenchOptions.check(opt.containsKey("a") && opt.containsKey("b"), "--a and --b are required", usage);
    int slices = Integer.parseInt(opt.get("slices"));
    Duration slice = Duration.ofSeconds(Long.parseLong(opt.get("seconds")));
    int connections = Integer.parseInt(opt.get("connections"));
    Load load = Load.pick();
    int promptKib = Integer.parseInt(opt.get("prompt-kib"));
    BenchOptions.check(promptKib >= 0, "--prompt-kib must be 0 or more", usage);
    byte[] json = SideBySide.body("fast", false, promptKib);
    byte[] stream = SideBySide.body("fast", true, promptKib);
    try (FixedUpstream upstream = FixedUpstream.start(Integer.parseInt(opt.get("deltas")));
         Build a = Build.start(Path.of(opt.get("a")), opt.get("a-jvm"), upstream.baseUrl());
         Build b = Build.start(Path.of(opt.get("b")), opt.get("b-jvm"), upstream.baseUrl())) {
      System.out.printf(Locale.ROOT, "two builds: A %s {%s}, B %s {%s}; %d slices of %d s, c=%d, load %s; %d cpus%n",
          opt.get("a"), opt.get("a-jvm"), opt.get("b"), opt.get("b-jvm"), slices, slice.toSeconds(), connections,
          load.name(), Runtime.getRuntime().availableProcessors());
      for (int w = 0; w < 2; w++) { // the JIT: JSON and streams, each build in turn
        for (Build build : List.of(a, b)) {
          build.slice(load, json, connections, Duration.ofSeconds(20));
          build.slice(load, stream, connections, Duration.ofSeconds(8));
        }
      }
      compare("JSON", a, b, load, json, connections, slice, slices);
      compare("stream", a, b, load, stream, connections, slice, Math.max(3, slices / 2));
    }
  }

  private static void compare(String what, Build a, Build b, Load load, byte[] body, int connections, Duration slice,
      int slices) throws Exception {
    double[] cpu = new double[slices];
    double[] p50 = new double[slices];
    StringBuilder as = new StringBuilder();
    StringBuilder bs = new StringBuilder();
    for (int i = 0; i < slices; i++) {
      Slice sa = a.slice(load, body, connections, slice);
      Slice sb = b.slice(load, body, connections, slice);
      as.append(String.format(Locale.ROOT, " %.1f/%.0f", sa.cpuMicros(), sa.p50Micros()));
      bs.append(String.format(Locale.ROOT, " %.1f/%.0f", sb.cpuMicros(), sb.p50Micros()));
      cpu[i] = sb.cpuMicros() / sa.cpuMicros();
      p50[i] = sb.p50Micros() / sa.p50Micros();
    }
    System.out.printf(Locale.ROOT, "%s, CPU µs per request / p50 µs, A:%s%n%s, CPU µs per request / p50 µs, B:%s%n",
        what, as, what, bs);
    System.out.printf(Locale.ROOT, "%s, CPU B / A per slice pair: %s%n", what, spread(cpu));
    System.out.printf(Locale.ROOT, "%s, p50 B / A per slice pair: %s%n", what, spread(p50));
  }

  private static String spread(double[] ratios) {
    double[] sorted = ratios.clone();
    Arrays.sort(sorted);
    return String.format(Locale.ROOT, "min %.3f, median %.3f, max %.3f", sorted[0], sorted[sorted.length / 2],
        sorted[sorted.length - 1]);
  }

  /** One slice of one build: its CPU µs per answered request, and the load's p50 latency in µs. */
  private record Slice(double cpuMicros, double p50Micros) {}

  /** One build's Levee in its own JVM and working folder (its embedded job store is its own). */
  private record Build(LeveeChild levee) implements AutoCloseable {

    static Build start(Path dir, String jvmOptions, URI upstream) throws Exception {
      String classPath = dir.toAbsolutePath().resolve("levee-bench.jar") + ":" + dir.toAbsolutePath().resolve("lib") + "/*";
      return new Build(LeveeChild.start(classPath, Files.createTempDirectory("two-builds").toFile(), jvmOptions,
          LeveeProcess.class.getName(), upstream.toString()));
    }

    /** CPU µs of this build's process per answered request over one run of {@code time}, and its p50. */
    Slice slice(Load load, byte[] body, int connections, Duration time) throws Exception {
      long pid = levee.process().pid();
      double before = ProcCpu.seconds(pid);
      Load.Run run = load.run(levee.baseUrl(), body, connections, time);
      double cpu = ProcCpu.seconds(pid) - before;
      if (run.failures() > 0) {
        throw new IllegalStateException(run.failures() + " failed answers from " + levee.baseUrl());
      }
      return new Slice(cpu * 1e6 / run.requests(), run.p50Micros());
    }

    @Override
    public void close() throws Exception {
      levee.close();
    }
  }
}
