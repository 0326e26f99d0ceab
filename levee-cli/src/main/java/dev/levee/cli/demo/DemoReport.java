package dev.levee.cli.demo;

import dev.levee.cli.report.Chart;
import dev.levee.cli.report.Palette;
import dev.levee.cli.report.Report;
import dev.levee.emulator.LogEntry;
import dev.levee.emulator.Scenario;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The demo's two worlds as a {@link Report}: the summary table, then per world its tier, circuit,
 * answers by source, upstream calls and retry budget over the same seconds, the incident's phases
 * shaded.
 */
final class DemoReport {

  /** What one world showed at the start of each second (read by the demo's timeline as the second before ends). */
  static final class Readings {
    final double[] tier;
    final double[] circuit;
    final double[] budget;

    Readings(int seconds) {
      tier = nan(seconds);
      circuit = nan(seconds);
      budget = nan(seconds);
    }

    void record(int second, World world) {
      tier[second] = world.tier().charAt(1) - '0';
      circuit[second] = switch (world.primaryCircuit()) {
        case CLOSED -> 0;
        case HALF_OPEN -> 1;
        case OPEN -> 2;
      };
      budget[second] = world.budgetLeft();
    }

    private static double[] nan(int seconds) {
      double[] values = new double[seconds];
      java.util.Arrays.fill(values, Double.NaN);
      return values;
    }
  }

  private DemoReport() {}

  static Report of(String lead, Report.Table summary, Scenario incident, int seconds, Side levee, Side baseline,
      List<String> warnings) {
    List<Chart.Band> bands = bands(incident, seconds);
    return new Report("Levee demo: the same incident with and without Levee", lead, List.of(), List.of(summary),
        List.of(section("With Levee", "Fallback chain, retries with full jitter, breaker, retry budget and tiers.",
                levee, seconds, bands, true),
            section("Without Levee", "The same gateway with resilience off: one model, no retries, no fallback, no breaker.",
                baseline, seconds, bands, false)), warnings);
  }

  /** One world's readings, its load and its upstream calls. */
  record Side(Readings readings, Load load, List<LogEntry> calls) {}

  private static Report.Section section(String heading, String note, Side side, int seconds, List<Chart.Band> bands,
      boolean resilient) {
    List<Chart> charts = new ArrayList<>();
    if (resilient) {
      charts.add(Chart.levels("Tier of the default feature", Palette.TIERS,
          List.of(new Chart.Series("tier", Palette.BLUE, side.readings().tier)), bands));
      charts.add(Chart.levels("Circuit of the primary (" + World.PRIMARY + ")", List.of("CLOSED", "HALF_OPEN", "OPEN"),
          List.of(new Chart.Series("circuit", Palette.PURPLE, side.readings().circuit)), bands));
    }
    Load load = side.load();
    charts.add(Chart.stacked("Answers by source (by the second they finished)", "answers / s", List.of(
        new Chart.Series("primary", Palette.BLUE, first(load.primary, seconds)),
        new Chart.Series("fallback", Palette.GREEN, first(load.fallback, seconds)),
        new Chart.Series("failed", Palette.RED, first(load.failed, seconds))), bands));
    double[][] calls = calls(side.calls(), seconds);
    charts.add(Chart.stacked("Upstream calls (the emulator's attempt log)", "calls / s", List.of(
        new Chart.Series("answered", Palette.BLUE, calls[0]),
        new Chart.Series("529 overloaded", Palette.ORANGE, calls[1]),
        new Chart.Series("other failure", Palette.RED, calls[2])), bands));
    if (resilient) {
      charts.add(Chart.lines("Retry budget", "tokens left",
          List.of(new Chart.Series("tokens left", Palette.GREEN, side.readings().budget)), bands));
    }
    return new Report.Section(heading, note, charts);
  }

  /** The incident's failing phases as shaded spans, at the seconds the emulator applies them. */
  static List<Chart.Band> bands(Scenario incident, int seconds) {
    return incident.phases().stream().filter(p -> p.status() != 200).map(p -> new Chart.Band(
        p.from().toMillis() / 1000.0, p.to() == null ? seconds : p.to().toMillis() / 1000.0,
        String.format(Locale.ROOT, "%s: %.0f%% %d", p.model().equals("*") ? "all models" : p.model(), 100 * p.rate(),
            p.status()), p.rate() >= 1 ? Palette.STORM : Palette.PARTIAL)).toList();
  }

  private static double[] first(AtomicIntegerArray counts, int seconds) {
    double[] values = new double[seconds];
    for (int s = 0; s < seconds && s < counts.length(); s++) {
      values[s] = counts.get(s);
    }
    return values;
  }

  private static double[][] calls(List<LogEntry> log, int seconds) {
    double[][] calls = new double[3][seconds];
    for (LogEntry e : log) {
      int s = (int) (e.atMs() / 1000);
      if (s < seconds) {
        calls[e.status() == 200 ? 0 : e.status() == 529 ? 1 : 2][s]++;
      }
    }
    return calls;
  }
}
