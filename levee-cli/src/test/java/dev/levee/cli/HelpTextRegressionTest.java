package dev.levee.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.UsageMessageSpec;

/**
 * Regression (session 7 newcomer trial): {@code levee demo --help} said its first sentence twice
 * (header and description) and broke lines mid-sentence (each element of a description is a line
 * of its own, so sentences split over elements broke where the source did), and {@code levee
 * --help} listed {@code emulator} without a full stop.
 */
class HelpTextRegressionTest {

  @Test
  void everyCommandsSummaryInTheListIsASentence() {
    Levee.commandLine().getSubcommands().forEach((name, command) -> {
      UsageMessageSpec usage = command.getCommandSpec().usageMessage();
      String summary = usage.header().length > 0 ? usage.header()[0] : usage.description()[0];
      assertThat(summary).as(name).endsWith(".");
    });
  }

  @Test
  void noSentenceOfADescriptionIsSplitOverLines() {
    Levee.commandLine().getSubcommands().forEach((name, command) -> {
      if (name.equals("help")) {
        return; // picocli's own
      }
      for (String line : command.getCommandSpec().usageMessage().description()) {
        assertThat(line.strip()).as(name + ": " + line).endsWith(".");
      }
    });
  }

  @Test
  void theDemosHelpSaysItsFirstSentenceOnce() {
    StringWriter out = new StringWriter();
    CommandLine cli = Levee.commandLine();
    cli.setOut(new PrintWriter(out, true));
    assertThat(cli.execute("demo", "--help")).isZero();

    assertThat(out.toString().split("Run an outage drill", -1)).hasSize(2);
    assertThat(out.toString().replaceAll("\\s+", " ")).contains("healthy-for 5 s");
  }
}
