package dev.levee.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class RoutingDayCommandTest {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int levee(String... args) {
    CommandLine cli = new CommandLine(new SimulateCommand());
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  @Test
  void printsBothPoliciesForTheDayAndTheBrownOut() {
    assertThat(levee("routing-day", "--hours", "2", "--brownout-start", "0.5", "--brownout-end", "1.5",
        "--format", "csv")).isZero();

    String[] lines = out.toString().split("\n");
    assertThat(lines[0]).startsWith("policy,span,requests,loss,");
    assertThat(lines).hasSize(5);
    assertThat(lines[1]).startsWith("fixed chain,day,14400,");
    assertThat(lines[4]).startsWith("score routing,brown-out,7200,");
  }

  @Test
  void aBrownOutOutsideTheDayIsAUsageError() {
    assertThat(levee("routing-day", "--hours", "2", "--brownout-end", "13")).isEqualTo(2);

    assertThat(err.toString()).contains("brown-out");
  }
}
