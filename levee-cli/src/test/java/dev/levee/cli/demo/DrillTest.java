package dev.levee.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.cli.report.HtmlReport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The main job, shortened: the same incident through Levee and through a gateway without resilience. */
class DrillTest {

  @Test
  void leveeLosesNothingWhereTheBaselineLosesRequests() throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    Drill.Result result;
    Drill drill;
    try (PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
      drill = new Drill(Duration.ofSeconds(6), 10, 4, 7, null, out, () -> new MachineLoad(20, 2)); // a starved machine
      result = drill.run();
    }
    String timeline = printed.toString(StandardCharsets.UTF_8);
    System.out.println(timeline); // in the test report: a failed drill shows its timeline and summary

    // checked first: they hold however loaded the machine is (the figures below need a quiet one)
    // newcomer trial, session 12: the machine's load is printed, and a starved one is warned of
    assertThat(timeline).contains("machine:    load average 20.00 (1 min) on 2 cores, 10.00 per core")
        .contains("WARNING: this machine was starved of CPU");
    assertThat(HtmlReport.render(drill.report())).contains("<p class=\"warning\">WARNING: this machine was starved of CPU");
    // newcomer trial, session 12: answers that ended after the last second were in no row of the table
    assertThat(timelineSums(timeline)).as("sent, primary, fallback, failed, calls; without: ok, failed, calls in%n%s", timeline)
        .containsExactly(summed(timeline, "with Levee", "without Levee"));

    assertThat(result.resilientLoss()).isZero();
    assertThat(result.baselineLoss()).isGreaterThan(0.1);
    assertThat(result.resilientAmplification()).isBetween(1.0, 1.5);
    assertThat(result.baselineAmplification()).isEqualTo(1.0);
    String report = HtmlReport.render(drill.report());
    assertThat(report).contains("With Levee", "Without Levee", "Tier of the default feature", "Circuit of the primary")
        .contains("<td>with Levee</td>", "<td>without Levee</td>");
    assertThat(report.split("<svg", -1)).as("five charts with Levee, two without").hasSize(8);
    assertThat(timeline).contains("   5s |").contains("with Levee").contains("without Levee").contains("OPEN");
    // newcomer trial, session 11: the summary showed no latency, so what retries and fallbacks cost was not seen
    assertThat(timeline).contains("latency p50     p99").containsPattern("with Levee .* \\d+\\.\\d\\d s +\\d+\\.\\d\\d s");
    assertThat(report).contains("latency p50", "latency p99");
  }

  /** The count columns of the per-second table, summed over its rows. */
  private static int[] timelineSums(String printed) {
    java.util.List<String> rows = printed.lines().filter(l -> l.matches("^( *\\d+s|later) \\|.*")).toList();
    assertThat(rows).hasSizeGreaterThanOrEqualTo(6);
    return TimelineSumsToSummaryRegressionTest.sums(rows);
  }

  /** The same columns as the summary gives them. */
  private static int[] summed(String printed, String levee, String baseline) {
    String[] a = printed.lines().filter(l -> l.startsWith(levee + " ")).findFirst().orElseThrow()
        .substring(levee.length()).trim().split("\\s+");
    String[] b = printed.lines().filter(l -> l.startsWith(baseline + " ")).findFirst().orElseThrow()
        .substring(baseline.length()).trim().split("\\s+");
    // requests answered by-fallback failed loss calls amplification ...
    int answered = Integer.parseInt(a[1]);
    int fallback = Integer.parseInt(a[2]);
    return new int[] {Integer.parseInt(a[0]), answered - fallback, fallback, Integer.parseInt(a[3]),
        Integer.parseInt(a[5]), Integer.parseInt(b[1]), Integer.parseInt(b[3]), Integer.parseInt(b[5])};
  }
}
