package dev.levee.cli.drill;

import dev.levee.cli.DurationConverter;
import dev.levee.cli.QuietLogs;
import dev.levee.cli.report.HtmlReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code levee drill}: the published weekly drill (docs/drill.md). Exit status: 0 when every
 * assertion held, 1 when one failed, 2 on a usage error, 3 when the drill could not run (a
 * gateway or emulator unreachable, a report that cannot be written).
 */
@Command(name = "drill", mixinStandardHelpOptions = true,
    header = "Run the weekly 429-storm drill and check the tiers and the cache held (report, webhook).",
    description = {"Runs against its own embedded emulator and gateway, or a running pair (--gateway, --emulator). "
        + "Asserts: the tier is at T2 or below within 60 s of the storm's start; at least 80%% of the storm's "
        + "requests are answered from the cache; the tier is back at T0 within 300 s of its end.",
        "Exit status: 0 passed, 1 an assertion failed, 2 usage error, 3 could not run."},
    exitCodeOnInvalidInput = 2)
public final class DrillCommand implements Callable<Integer> {

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Option(names = "--gateway", paramLabel = "URL", description = "A running gateway (with --emulator); default: an embedded one.")
  URI gateway;

  @Option(names = "--emulator", paramLabel = "URL", description = "The emulator behind --gateway; the drill schedules the storm on it.")
  URI emulator;

  @Option(names = "--duration", defaultValue = "180s", converter = DurationConverter.class,
      description = "Length of the storm, in drill time (default ${DEFAULT-VALUE}).")
  Duration duration;

  @Option(names = "--speed", defaultValue = "1",
      description = "Drill seconds per real second (default ${DEFAULT-VALUE}). Embedded, the emulator and gateway run on the "
          + "drill's virtual clock, so any speed is faithful (CI: 100). Against a running pair, its tiers must be "
          + "configured as compressed by the same factor.")
  double speed;

  @Option(names = "--storm-share", defaultValue = "1.0", description = "Share of upstream calls the storm answers 429, "
      + "0 < share <= 1 (default ${DEFAULT-VALUE}).")
  double stormShare;

  @Option(names = "--rate", defaultValue = "2", description = "Requests per second (default ${DEFAULT-VALUE}).")
  int rate;

  @Option(names = "--mix", defaultValue = "20", description = "Distinct questions in the repeating mix (default ${DEFAULT-VALUE}).")
  int mix;

  @Option(names = "--model", paramLabel = "ALIAS", description = "The alias to ask for (default: chat, the embedded gateway's).")
  String alias = Pair.EMBEDDED_ALIAS;

  @Option(names = "--feature", defaultValue = "default", description = "The feature whose tier is asserted (default ${DEFAULT-VALUE}).")
  String feature;

  @Option(names = "--report", paramLabel = "FILE", description = "Write a self-contained HTML report there.")
  Path report;

  @Option(names = "--webhook", paramLabel = "URL", description = "Post a Slack-compatible summary ({\"text\": …}) there.")
  URI webhook;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    String usage = usageProblem();
    if (usage != null) {
      err.println("levee drill: " + usage);
      return 2;
    }
    QuietLogs.apply();
    DrillPlan plan = DrillPlan.published(duration, stormShare, rate, mix, alias, feature);
    Instant startedAt = Instant.now();
    DrillOutcome outcome;
    String against;
    try (Pair pair = gateway == null ? Pair.embedded(speed) : Pair.running(gateway, emulator, speed)) {
      against = pair.description();
      out.println("levee drill: " + plan.warmUp().toSeconds() + " s calm, " + duration.toSeconds() + " s storm of 429s on "
          + Math.round(100 * stormShare) + "% of calls, then recovery; against " + against + ".");
      outcome = new StormDrill(plan, pair, new Progress(out, System.console() != null)).run();
    } catch (IOException e) {
      err.println("levee drill: could not run: " + e.getMessage());
      return 3;
    }
    String summary = DrillReport.summary(outcome);
    out.println(summary);
    out.flush();
    if (report != null) {
      try {
        HtmlReport.write(DrillReport.of(outcome, against, speed, startedAt), report);
        out.println("report: " + report.toAbsolutePath());
      } catch (IOException e) {
        err.println("levee drill: cannot write the report " + report + ": " + e.getMessage());
        return 3;
      }
    }
    if (webhook != null) {
      try {
        Webhook.post(webhook, summary);
      } catch (IOException e) {
        err.println("levee drill: the webhook " + webhook.getHost() + " failed: " + e.getMessage());
      }
    }
    return outcome.passed() ? 0 : 1;
  }

  private String usageProblem() {
    if ((gateway == null) != (emulator == null)) {
      return "--gateway and --emulator go together (a running pair), or neither (the embedded pair)";
    }
    if (duration.toSeconds() < 10) {
      return "--duration must be at least 10s, was " + duration.toMillis() + "ms";
    }
    if (!(speed > 0) || Double.isInfinite(speed)) {
      return "--speed must be a positive number, was " + speed;
    }
    if (!(stormShare > 0 && stormShare <= 1)) {
      return "--storm-share must be within (0, 1], was " + stormShare;
    }
    if (rate < 1 || mix < 1) {
      return "--rate and --mix must be at least 1";
    }
    for (URI uri : new URI[] {gateway, emulator, webhook}) {
      if (uri != null && !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
        return "'" + uri + "' is not an http(s) URL";
      }
    }
    return null;
  }
}
