package dev.levee.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.cli.report.HtmlReport;
import dev.levee.cli.report.Report;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 12): at a load of ~20 on 2 cores the demo showed Levee losing
 * 93.5% of its requests and the baseline 49%, and said nothing about the machine. The demo now
 * prints the load average and cores at its start and end, and warns in the summary and the HTML
 * report when the load per core was above {@link MachineLoad#STARVED_PER_CORE}. Readings injected.
 */
class StarvedMachineWarningRegressionTest {

  @Test
  void theTrialsMachineIsStarvedAndTheWarningSaysTheFiguresAreUnreliable() {
    MachineLoad trial = MachineLoad.parse("19.86 19.09 17.28 21/1034 5521\n", 2);

    assertThat(trial.oneMinute()).isEqualTo(19.86);
    assertThat(trial.starved()).isTrue();
    assertThat(MachineLoad.describe(trial)).isEqualTo("load average 19.86 (1 min) on 2 cores, 9.93 per core");
    assertThat(MachineLoad.warning(new MachineLoad(0.4, 2), trial))
        .startsWith("WARNING: this machine was starved of CPU (load per core above 2.0: 0.20 at the start, 9.93 at the end)")
        .contains("the demo's figures are unreliable");
  }

  @Test
  void aQuietMachineGetsNoWarningAndTheThresholdIsTwoPerCore() {
    assertThat(MachineLoad.warning(new MachineLoad(1.1, 2), new MachineLoad(4.0, 2))).as("2.00 per core: at the bound")
        .isNull();
    assertThat(MachineLoad.warning(new MachineLoad(1.1, 2), new MachineLoad(4.02, 2))).isNotNull();
    assertThat(MachineLoad.warning(new MachineLoad(8.5, 4), null)).as("starved at the start, end unknown")
        .contains("2.13 at the start, unknown at the end");
  }

  @Test
  void anUnreadableLoadIsSaidUnknownAndWarnsOfNothing() {
    assertThat(MachineLoad.describe(null)).isEqualTo("load average unknown (no /proc/loadavg)");
    assertThat(MachineLoad.warning(null, null)).isNull();
  }

  @Test
  void theHtmlReportShowsTheWarningUnderTheLead() {
    String warning = MachineLoad.warning(new MachineLoad(20, 2), new MachineLoad(20, 2));
    String html = HtmlReport.render(new Report("demo", "lead", List.of(), List.of(), List.of(), List.of(warning)));

    assertThat(html).contains("<p class=\"lead\">lead</p>\n<p class=\"warning\">WARNING: this machine was starved of CPU");
  }
}
