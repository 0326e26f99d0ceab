package dev.levee.cli;

import dev.levee.cli.demo.Drill;
import dev.levee.cli.report.HtmlReport;
import dev.levee.emulator.Scenario;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code levee demo}: the main job on its embedded default. An emulator and a gateway start in
 * this process; the primary model goes through an incident while official-SDK clients send
 * requests; a second, identical world without resilience takes the same load for comparison.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    header = "Run an outage drill with and without Levee, side by side, and print the losses.",
    description = "The primary model fails (full outage, then partial overload, then recovery) while SDK clients "
        + "send requests through Levee and, side by side, through a gateway with resilience off. Prints a per-second "
        + "timeline and a summary (loss, amplification). The demo's tiers react in seconds (healthy-for 5 s, "
        + "evaluated every second), so its tier column moves faster than a production config's would. Needs no API "
        + "key and no network.")
final class DemoCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Option(names = "--duration", defaultValue = "60s", converter = DurationConverter.class,
      description = "Length of the drill, e.g. 60s, 2m (default ${DEFAULT-VALUE}); the incident's phases scale with it.")
  Duration duration;

  @Option(names = "--rate", defaultValue = "10", description = "Client requests per second on each side (default ${DEFAULT-VALUE}).")
  int rate;

  @Option(names = "--clients", defaultValue = "8", description = "SDK clients sharing the load (default ${DEFAULT-VALUE}).")
  int clients;

  @Option(names = "--scenario", paramLabel = "FILE",
      description = "An emulator scenario to use instead of the built-in incident (the primary is claude-opus-4-6).")
  Path scenario;

  @Option(names = "--seed", defaultValue = "7", description = "Seed of the incident's random failures (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--report", paramLabel = "FILE",
      description = "Also write a self-contained HTML report of both worlds (charts per second) there.")
  Path report;

  @Override
  public Integer call() throws Exception {
    if (duration.toSeconds() < 5 || rate < 1 || clients < 1) {
      spec.commandLine().getErr().println("levee demo: --duration must be at least 5s, --rate and --clients at least 1");
      return 2;
    }
    Scenario incident = null;
    if (scenario != null) {
      incident = ScenarioFiles.load(scenario, spec.commandLine().getErr());
      if (incident == null) {
        return 2;
      }
    }
    QuietLogs.apply();
    PrintStream out = System.out;
    Drill drill = new Drill(duration, rate, clients, seed, incident, out);
    drill.run();
    if (report != null) {
      try {
        HtmlReport.write(drill.report(), report);
      } catch (IOException e) {
        System.err.println("levee demo: cannot write the report " + report + ": " + e.getMessage());
        return 3;
      }
      out.println("report: " + report.toAbsolutePath() + " (open it in a browser)");
    }
    return 0;
  }
}
