package dev.levee.cli.drill;

import dev.levee.cli.report.Chart;
import dev.levee.cli.report.Palette;
import dev.levee.cli.report.Report;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** A drill's outcome as a {@link Report} (the HTML page) and as a one-message summary (chat, console). */
final class DrillReport {

  private DrillReport() {}

  static Report of(DrillOutcome outcome, String against, double speed, Instant startedAt) {
    DrillPlan plan = outcome.plan();
    List<Chart.Band> storm = List.of(new Chart.Band(plan.stormStartMs() / 1000.0, plan.stormEndMs() / 1000.0,
        String.format(Locale.ROOT, "storm: %.0f%% of calls 429", 100 * plan.stormShare()), Palette.STORM));
    double[][] bySource = outcome.answersBySource();
    UpstreamCalls calls = outcome.calls();
    List<Chart> charts = List.of(
        Chart.levels("Tier of feature " + plan.feature() + " (from /health, once per second)", Palette.TIERS,
            List.of(new Chart.Series("tier", Palette.BLUE, tiers(outcome))), storm),
        Chart.stacked("Answers by source (by the second they were asked)", "answers / s", List.of(
            new Chart.Series("upstream", Palette.BLUE, bySource[Answer.Source.UPSTREAM.ordinal()]),
            new Chart.Series("cache", Palette.GREEN, bySource[Answer.Source.CACHE.ordinal()]),
            new Chart.Series("static (T3)", Palette.PURPLE, bySource[Answer.Source.STATIC.ordinal()]),
            new Chart.Series("failed", Palette.RED, bySource[Answer.Source.FAILED.ordinal()])), storm),
        Chart.stacked("Upstream calls (the emulator's attempt log)", "calls / s", List.of(
            new Chart.Series("answered", Palette.BLUE, doubles(calls.answered())),
            new Chart.Series("429 rate limited", Palette.ORANGE, doubles(calls.rateLimited())),
            new Chart.Series("other failure", Palette.RED, doubles(calls.other()))), storm),
        Chart.lines("Retry budget (from /health)", "tokens left", List.of(
            new Chart.Series("tokens left", Palette.GREEN, outcome.samples().stream().mapToDouble(Sample::budget).toArray())),
            storm));
    long asked = outcome.answers().size();
    Report.Table answers = new Report.Table("Answers", List.of("source", "answers", "share"),
        Arrays.stream(Answer.Source.values()).map(source -> List.of(source.name().toLowerCase(Locale.ROOT),
            String.valueOf(outcome.count(source)), percent(outcome.count(source), asked))).toList());
    String lead = String.format(Locale.ROOT,
        "The published weekly drill, run %s against %s%s: %d s of calm, then a storm of 429s (retry-after %s) on "
            + "%.0f%% of upstream calls for %d s, then recovery; a repeating mix of %d questions at %d requests/s to "
            + "alias %s. %d requests, %d upstream calls; the drill ended %d s after the storm. Tier path: %s.",
        startedAt.truncatedTo(ChronoUnit.SECONDS), against, speed == 1 ? "" : String.format(Locale.ROOT,
            " at %sx speed", trim(speed)), plan.warmUp().toSeconds(), plan.retryAfter().toMillis() % 1000 == 0
            ? plan.retryAfter().toSeconds() + " s" : plan.retryAfter().toMillis() + " ms",
        100 * plan.stormShare(), plan.storm().toSeconds(), plan.mix(), plan.rate(), plan.alias(), asked,
        calls.total(), Math.max(0, outcome.endedMs() - plan.stormEndMs()) / 1000, path(outcome, false));
    return new Report("Levee drill", lead, outcome.checks(), List.of(answers),
        List.of(new Report.Section("Timeline", "Seconds of drill time; the shaded span is the storm.", charts)));
  }

  /** The summary a chat webhook posts and the console prints: verdict, tier path, each assertion. */
  static String summary(DrillOutcome outcome) {
    StringBuilder text = new StringBuilder();
    text.append(outcome.passed() ? "✅ Levee drill passed" : "❌ Levee drill FAILED")
        .append(String.format(Locale.ROOT, " — %d s storm of 429s on %.0f%% of calls. Tiers: %s",
            outcome.plan().storm().toSeconds(), 100 * outcome.plan().stormShare(), path(outcome, true)));
    for (Report.Check check : outcome.checks()) {
      text.append("\n").append(check.passed() ? "• ✅ " : "• ❌ ").append(check.name()).append(": ")
          .append(check.measured()).append(" (").append(check.bound()).append(")");
    }
    return text.toString();
  }

  private static String path(DrillOutcome outcome, boolean emoji) {
    return outcome.tierPath().stream().map(t -> emoji ? Tiers.emoji(t) + " " + Tiers.label(t) : Tiers.label(t))
        .collect(Collectors.joining(" → "));
  }

  private static double[] tiers(DrillOutcome outcome) {
    return outcome.samples().stream().mapToDouble(s -> s.tier() < 0 ? Double.NaN : s.tier()).toArray();
  }

  private static double[] doubles(int[] counts) {
    return Arrays.stream(counts).asDoubleStream().toArray();
  }

  private static String percent(long part, long whole) {
    return whole == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * part / whole);
  }

  private static String trim(double speed) {
    return speed == Math.rint(speed) ? String.valueOf((long) speed) : String.valueOf(speed);
  }
}
