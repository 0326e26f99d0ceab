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
 * CPU per request in every slice and the ratio B / A of each pair (min / median / max).
 *
 * <p>Why slices: on a shared virtual machine the CPU a request costs drifts by 20–40 % over minutes
 * for every JVM at once, while nginx barely moves (docs/benchmarks.md, session 19). Alternating
 * whole runs of one build and then the other measures that drift as often as the change; slices a
 * few seconds apart, with both JVMs warm and alive, cancel it.
 *
 * <p>Run: {@code levee-bench/run TwoBuilds --a <dir> --b <dir> [--slices 12] [--seconds 6]
 * [--a-jvm "-Xmx256m"] [--b-jvm "-Xmx256m"] [--connections 64] [--deltas 30]}, where each dir holds a
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
        + "[--connections 64] [--a-jvm \"-Xmx256m\"] [--b-jvm \"-Xmx256m\"] [--deltas 30]";
    Map<String, String> opt = BenchOptions.parse(args, Map.of("slices", "12", "seconds", "6", "connections", "64",
        "a-jvm", "-Xmx256m", "b-jvm", "-Xmx256m", "deltas", "30"), Set.of("a", "b"), usage);
    BenchOptions.check(opt.containsKey("a") && opt.containsKey("b"), "--a and --b are required", usage);
    int slices = Integer.parseInt(opt.get("slices"));
    Duration slice = Duration.ofSeconds(Long.parseLong(opt.get("seconds")));
    int connections = Integer.parseInt(opt.get("connections"));
    Load load = Load.pick();
    byte[] json = SideBySide.body("fast", false);
    byte[] stream = SideBySide.body("fast", true);
    try (FixedUpstream upstream = FixedUpstream.start(Integer.parseInt(opt.get("deltas")));
         Build a = Build.start(Path.of(opt.get("a")), opt.get("a-jvm"), upstream.baseUrl());
         Build b = Build.start(Path.of(opt.get("b")), opt.get("b-jvm"), upstream.baseUrl())) {
      System.out.printf(Locale.ROOT, "two builds: A %s {%s}, B %s {%s}; %d slices of %d s, c=%d, load %s; %d cpus%n",
          opt.get("a"), opt.get("a-jvm"), opt.get("b"), opt.get("b-jvm"), slices, slice.toSeconds(), connections,
          load.name(), Runtime.getRuntime().availableProcessors());
      for (int w = 0; w < 2; w++) { // the JIT: JSON and streams, each build in turn
        for (Build build : List.of(a, b)) {
          build.cpuPerRequest(load, json, connections, Duration.ofSeconds(20));
          build.cpuPerRequest(load, stream, connections, Duration.ofSeconds(8));
        }
      }
      compare("JSON", a, b, load, json, connections, slice, slices);
      compare("stream", a, b, load, stream, connections, slice, Math.max(3, slices / 2));
    }
  }

  private static void compare(String what, Build a, Build b, Load load, byte[] body, int connections, Duration slice,
      int slices) throws Exception {
    double[] ratios = new double[slices];
    StringBuilder as = new StringBuilder();
    StringBuilder bs = new StringBuilder();
    for (int i = 0; i < slices; i++) {
      double ca = a.cpuPerRequest(load, body, connections, slice);
      double cb = b.cpuPerRequest(load, body, connections, slice);
      as.append(String.format(Locale.ROOT, " %.1f", ca));
      bs.append(String.format(Locale.ROOT, " %.1f", cb));
      ratios[i] = cb / ca;
    }
    Arrays.sort(ratios);
    System.out.printf(Locale.ROOT, "%s, CPU µs per request, A:%s%n%s, CPU µs per request, B:%s%n", what, as, what, bs);
    System.out.printf(Locale.ROOT, "%s, B / A per slice pair: min %.3f, median %.3f, max %.3f%n", what, ratios[0],
        ratios[slices / 2], ratios[slices - 1]);
  }

  /** One build's Levee in its own JVM and working folder (its embedded job store is its own). */
  private record Build(LeveeChild levee) implements AutoCloseable {

    static Build start(Path dir, String jvmOptions, URI upstream) throws Exception {
      String classPath = dir.toAbsolutePath().resolve("levee-bench.jar") + ":" + dir.toAbsolutePath().resolve("lib") + "/*";
      return new Build(LeveeChild.start(classPath, Files.createTempDirectory("two-builds").toFile(), jvmOptions,
          LeveeProcess.class.getName(), upstream.toString()));
    }

    /** CPU µs of this build's process per answered request over one run of {@code time}. */
    double cpuPerRequest(Load load, byte[] body, int connections, Duration time) throws Exception {
      long pid = levee.process().pid();
      double before = ProcCpu.seconds(pid);
      Load.Run run = load.run(levee.baseUrl(), body, connections, time);
      double cpu = ProcCpu.seconds(pid) - before;
      if (run.failures() > 0) {
        throw new IllegalStateException(run.failures() + " failed answers from " + levee.baseUrl());
      }
      return cpu * 1e6 / run.requests();
    }

    @Override
    public void close() throws Exception {
      levee.close();
    }
  }
}
