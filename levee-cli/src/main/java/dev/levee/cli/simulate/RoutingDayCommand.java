package dev.levee.cli.simulate;

import dev.levee.sim.report.RoutingTables;
import dev.levee.sim.report.Table;
import dev.levee.sim.study.RoutingDayStudy;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code levee simulate routing-day}: a day with an Opus brown-out, served by the fixed chain and
 * by the scoring router (levee-core's {@code ScoringRouter} and breakers on virtual time); prints
 * loss, latency, attempts, cost and who served, for the day and the brown-out.
 */
@Command(
    name = "routing-day",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
        "A day on an Opus/Sonnet/Haiku alias with an Opus brown-out: fixed chain against score routing.",
        "Loss, latency, attempts and cost for the whole day and for the brown-out."})
public final class RoutingDayCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Option(names = "--seed", defaultValue = "20261201", description = "mulberry32 seed (default: ${DEFAULT-VALUE})")
  int seed;

  @Option(names = "--rate", defaultValue = "2", description = "requests per second (default: ${DEFAULT-VALUE})")
  double rate;

  @Option(names = "--hours", defaultValue = "24", description = "length of the day in hours (default: ${DEFAULT-VALUE})")
  double hours;

  @Option(names = "--brownout-start", defaultValue = "10", description = "brown-out start, hours into the day (default: ${DEFAULT-VALUE})")
  double brownoutStart;

  @Option(names = "--brownout-end", defaultValue = "13", description = "brown-out end, hours into the day (default: ${DEFAULT-VALUE})")
  double brownoutEnd;

  @Option(names = "--brownout-fail-rate", defaultValue = "0.6", description = "share of Opus calls failing in the brown-out (default: ${DEFAULT-VALUE})")
  double brownoutFailRate;

  @Option(names = "--brownout-slowdown", defaultValue = "3", description = "how many times slower Opus answers in the brown-out (default: ${DEFAULT-VALUE})")
  double brownoutSlowdown;

  @Option(names = "--format", defaultValue = "table", converter = FormatConverter.class,
      description = "table, csv or json (default: ${DEFAULT-VALUE})")
  Table.Format format;

  @Override
  public Integer call() {
    RoutingDayStudy study;
    try {
      study = new RoutingDayStudy(seed, rate, hours, brownoutStart, brownoutEnd, brownoutFailRate, brownoutSlowdown);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    List<RoutingDayStudy.Row> rows = study.run();
    PrintWriter out = spec.commandLine().getOut();
    if (format == Table.Format.TABLE) {
      out.printf(Locale.ROOT, "routing day: %s h at %s/s; Opus fails %s and is %sx slower from %s h to %s h; seed %d%n%n",
          StudyOptions.n(hours), StudyOptions.n(rate), StudyOptions.n(brownoutFailRate), StudyOptions.n(brownoutSlowdown),
          StudyOptions.n(brownoutStart), StudyOptions.n(brownoutEnd), seed);
    }
    out.print(RoutingTables.routingDay(rows).render(format));
    out.flush();
    return 0;
  }
}
