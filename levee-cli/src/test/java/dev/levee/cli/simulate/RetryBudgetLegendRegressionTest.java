package dev.levee.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Regression (session 7): {@code levee simulate retry-budget} printed its table with no word on
 * what its columns mean or their units ({@code amp}? {@code denied} what?), and its {@code --help}
 * did not say what it compares. A legend now follows the table, and the help says what is
 * compared.
 */
class RetryBudgetLegendRegressionTest {

  private final StringWriter out = new StringWriter();

  private int levee(String... args) {
    CommandLine cli = new CommandLine(new SimulateCommand());
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(new StringWriter(), true));
    return cli.execute(args);
  }

  @Test
  void theTableIsFollowedByALegendOfEveryColumnWithItsUnit() {
    assertThat(levee("retry-budget")).isZero();

    String text = out.toString();
    String legend = text.substring(text.lastIndexOf("|") + 1);
    assertThat(legend)
        .contains("policy   immediate retry: waits 0.05 s before each retry")
        .contains("backoff + full jitter: waits U(0,1) x min(30, 1 x 2^n) s after n attempts")
        .contains("budget M / ratio R: full jitter; a retry spends 1 of at most M tokens (full at start), a success earns R")
        .contains("calls    upstream calls, first attempts and retries (count)")
        .contains("retries  upstream calls after a request's first (count)")
        .contains("denied   requests lost because the retry budget refused a retry (count)")
        .contains("amp      amplification: upstream calls per request")
        .contains("loss     requests that never succeeded (all 5 attempts failed, or a retry was denied), % of the 1500")
        .contains("The trade: a budget caps amp").contains("multiply an overload by up to 5"); // newcomer trial: budgets read as "worse"
  }

  @Test
  void machineReadableFormatsHaveNoLegend() {
    assertThat(levee("retry-budget", "--format", "csv")).isZero();

    assertThat(out.toString()).doesNotContain("amplification:").hasLineCount(7); // header and six rows
  }

  @Test
  void helpSaysWhatTheCommandCompares() {
    assertThat(levee("retry-budget", "--help")).isZero();

    String help = out.toString().replaceAll("\\s+", " "); // as picocli wraps it
    assertThat(help).contains("Compare retry policies with and without a retry budget through an outage.")
        .contains("immediate retry, backoff with full jitter, and full jitter behind each retry budget of --budgets",
            "a legend under it explains the columns");
  }
}
