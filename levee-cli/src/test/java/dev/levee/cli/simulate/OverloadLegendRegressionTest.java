package dev.levee.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Regression (newcomer trial, session 12): {@code levee simulate overload} printed its table with no
 * legend (retry-budget has one), and its {@code p99 latency} read exactly 1.00 s for five of seven
 * policies with no word why. A legend now follows the table; it says that a successful call takes
 * {@code --success-latency}, so 1.00 s means the successes needed no retry, and that no deadline
 * caps it.
 */
class OverloadLegendRegressionTest {

  private final StringWriter out = new StringWriter();

  private int levee(String... args) {
    CommandLine cli = new CommandLine(new SimulateCommand());
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(new StringWriter(), true));
    return cli.execute(args);
  }

  @Test
  void theTableIsFollowedByALegendThatExplainsAP99OfExactlyTheSuccessLatency() {
    assertThat(levee("overload")).isZero();

    String text = out.toString();
    assertThat(text).contains(" 1.00 s |"); // the value the trial asked about
    String legend = text.substring(text.lastIndexOf("|") + 1);
    assertThat(legend)
        .contains("policy         immediate retry: waits 0.05 s before each retry; full jitter: waits U(0,1) x min(30, 1 x 2^n) s")
        .contains("loss           requests that never succeeded, % of the ")
        .contains("amp            amplification: upstream calls per request")
        .contains("recovery       seconds from the trigger's end (180 s)")
        .contains("p99 latency    99th percentile of the successful requests' time from arrival to success (s)")
        .contains("call takes 1 s (--success-latency), so a request its first call answered takes exactly 1 s")
        .contains("a p99 of 1.00 s means at least 99% of the successes needed no retry")
        .contains("the requests that did not succeed are in loss, not here")
        .contains("Nothing caps it: the study has no deadline, only --max-attempts 5.")
        .contains("529s           upstream calls that failed")
        .contains("local rejects  requests lost because the breaker or the adaptive throttle refused an attempt (count)")
        .contains("denied         requests lost because the retry budget or the gRPC throttle refused a retry (count)");
  }

  @Test
  void theLegendFollowsTheSuccessLatencyGiven() {
    assertThat(levee("overload", "--success-latency", "2", "--horizon", "240")).isZero();

    assertThat(out.toString()).contains("a p99 of 2.00 s means");
  }

  @Test
  void machineReadableFormatsHaveNoLegend() {
    assertThat(levee("overload", "--format", "csv")).isZero();

    assertThat(out.toString()).doesNotContain("amplification:").hasLineCount(8); // header and seven rows
  }
}
