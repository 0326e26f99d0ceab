package dev.levee.bench;

import dev.levee.sim.RunStats;
import java.util.Arrays;
import java.util.Locale;

/**
 * A plain-main speed check: times one simulation of 1,000,000 requests per scenario (see {@link
 * MillionRequests}) and reports the median of several runs and its ratio to the 2 s target
 * (issue 5: "simulating 1,000,000 requests takes under 2 s"). Not a test: wall-clock numbers
 * belong to benchmarks.
 *
 * <p>Run: {@code java -cp levee-bench/target/levee-bench.jar dev.levee.bench.SimSpeed [runs]}.
 */
public final class SimSpeed {

  private static final double TARGET_SECONDS = 2.0;

  private SimSpeed() {}

  public static void main(String[] args) {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    System.out.printf(Locale.ROOT, "levee-sim speed: %,d requests per run, median of %d runs after 2 warm-up runs "
        + "(java %s, %d cpus)%n%n", MillionRequests.REQUESTS, runs, Runtime.version(),
        Runtime.getRuntime().availableProcessors());
    System.out.printf(Locale.ROOT, "| %-24s | %12s | %8s | %9s | %9s | %s |%n",
        "scenario", "calls", "events/s", "first run", "median", "median / 2 s target");
    System.out.printf("| ------------------------ | -----------: | -------: | --------: | --------: | ------------------: |%n");
    boolean allUnder = true;
    for (MillionRequests scenario : MillionRequests.values()) {
      double[] seconds = new double[runs];
      long start = System.nanoTime();
      RunStats stats = scenario.run(); // the very first run, JIT cold
      double first = (System.nanoTime() - start) / 1e9;
      scenario.run();
      for (int i = 0; i < runs; i++) {
        start = System.nanoTime();
        stats = scenario.run();
        seconds[i] = (System.nanoTime() - start) / 1e9;
      }
      Arrays.sort(seconds);
      double median = seconds[runs / 2];
      allUnder &= median < TARGET_SECONDS && first < TARGET_SECONDS;
      double events = stats.calls() * 2 + MillionRequests.REQUESTS; // attempts and answers, plus arrivals
      System.out.printf(Locale.ROOT, "| %-24s | %,12d | %7.1fM | %7.3f s | %7.3f s | %18.3fx |%n",
          scenario.label(), stats.calls(), events / median / 1e6, first, median, median / TARGET_SECONDS);
    }
    System.out.println();
    System.out.println(allUnder ? "every scenario under the 2 s target, first run included"
        : "SLOWER THAN THE 2 s TARGET");
  }
}
