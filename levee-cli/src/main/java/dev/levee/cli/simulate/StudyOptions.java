package dev.levee.cli.simulate;

import dev.levee.sim.report.Table;
import picocli.CommandLine.Option;

/** The options every study shares: the seed, the attempt limit, the retry waits and the output format. */
final class StudyOptions {

  @Option(names = "--seed", defaultValue = "20260921", description = "mulberry32 seed (default: ${DEFAULT-VALUE})")
  int seed;

  @Option(names = "--max-attempts", defaultValue = "5", description = "attempts per request, the first included (default: ${DEFAULT-VALUE})")
  int maxAttempts;

  @Option(names = "--immediate-delay", defaultValue = "0.05", description = "the immediate policy's wait, seconds (default: ${DEFAULT-VALUE})")
  double immediateDelay;

  @Option(names = "--backoff-base", defaultValue = "1", description = "first jittered wait's ceiling, seconds (default: ${DEFAULT-VALUE})")
  double backoffBase;

  @Option(names = "--backoff-cap", defaultValue = "30", description = "cap on any jittered wait, seconds (default: ${DEFAULT-VALUE})")
  double backoffCap;

  @Option(names = "--format", defaultValue = "table", converter = FormatConverter.class,
      description = "table, csv or json (default: ${DEFAULT-VALUE})")
  Table.Format format;

  /** A number as a person writes it: {@code 20}, not {@code 20.0}. */
  static String n(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }
}
