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
      drill = new Drill(Duration.ofSeconds(6), 10, 4, 7, null, out);
      result = drill.run();
    }
    String timeline = printed.toString(StandardCharsets.UTF_8);
    System.out.println(timeline); // in the test report: a failed drill shows its timeline and summary

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
}
