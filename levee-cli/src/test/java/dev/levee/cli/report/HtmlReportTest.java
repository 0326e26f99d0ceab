package dev.levee.cli.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report page: self-contained, escaped, written whole, charts drawn from their values. */
class HtmlReportTest {

  @TempDir
  Path dir;

  private static Report report(String title) {
    Chart bars = Chart.stacked("Calls <per second>", "calls / s", List.of(
        new Chart.Series("ok", Palette.BLUE, new double[] {1, 2, 0, Double.NaN}),
        new Chart.Series("429", Palette.ORANGE, new double[] {0, 1, 3, 1})),
        List.of(new Chart.Band(1, 3, "storm", Palette.STORM)));
    Chart tier = Chart.levels("Tier", Palette.TIERS, List.of(new Chart.Series("tier", Palette.BLUE,
        new double[] {0, 2, Double.NaN, 0})), List.of());
    return new Report(title, "lead & more", List.of(new Report.Check("a", "<= 1", "2", false),
        new Report.Check("b", ">= 0.8", "0.9", true)), List.of(new Report.Table("t", List.of("x", "y"),
            List.of(List.of("row", "1")))), List.of(new Report.Section("Timeline", "", List.of(bars, tier))));
  }

  @Test
  void thePageEscapesTextAndFetchesNothing() {
    String html = HtmlReport.render(report("Drill <script>alert(1)</script>"));

    assertThat(html).doesNotContain("<script").contains("Drill &lt;script&gt;alert(1)&lt;/script&gt;")
        .contains("lead &amp; more", "Calls &lt;per second&gt;");
    assertThat(html).doesNotContain("src=", "href=", "@import", "url(");
    assertThat(html).contains("<span class=\"verdict fail\">failed</span>").contains(">pass<").contains(">fail<");
  }

  @Test
  void stackedBarsAreDrawnForEveryNonZeroValueAndStepsSkipGaps() {
    String html = HtmlReport.render(report("r"));
    String bars = html.substring(html.indexOf("<svg"), html.indexOf("</svg>"));

    // 1+0, 2+1, 0+3, NaN+1: five non-zero values
    assertThat(bars.split("fill=\"" + Palette.BLUE + "\"/>", -1)).hasSize(1 + 2);
    assertThat(bars.split("fill=\"" + Palette.ORANGE + "\"/>", -1)).hasSize(1 + 3);
    String steps = html.substring(html.lastIndexOf("<svg"));
    assertThat(steps).contains("T0 full", "T3 static");
    assertThat(steps.split("<path d=\"M", -1)).as("one stroke, a gap restarts it with M").hasSize(2);
    assertThat(steps.substring(steps.indexOf("<path"))).containsPattern("d=\"M[^\"]*M");
  }

  /** Regression: reports came out owner-only (0600), unreadable by a CI artifact store or web server. */
  @Test
  void theReportIsReadableByOthers() throws Exception {
    Path file = dir.resolve("report.html");

    HtmlReport.write(report("r"), file);

    assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-r--r--");
  }

  @Test
  void writingCreatesTheDirectoryAndLeavesNoPartialFile() throws Exception {
    Path file = dir.resolve("a/b/report.html");

    HtmlReport.write(report("r"), file);

    assertThat(Files.readString(file)).startsWith("<!DOCTYPE html>").endsWith("</html>\n");
    try (var files = Files.list(file.getParent())) {
      assertThat(files).containsExactly(file);
    }
  }

  @Test
  void aLevelChartNamesItsLevels() {
    assertThatThrownBy(() -> new Chart("t", "", Chart.Style.LEVEL, List.of(), List.of(), List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
