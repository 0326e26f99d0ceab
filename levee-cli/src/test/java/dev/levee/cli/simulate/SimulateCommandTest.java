package dev.levee.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

class SimulateCommandTest {

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int levee(String... args) {
    CommandLine cli = new CommandLine(new SimulateCommand());
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  @Test
  void retryBudgetPrintsThePublishedTable() {
    assertThat(levee("retry-budget")).isZero();

    assertThat(out.toString())
        .contains("| immediate retry         |  2231 |     731 |      0 | 1.49 |  7.4% |")
        .contains("| backoff + full jitter   |  2235 |     735 |      0 | 1.49 |  5.2% |")
        .contains("| budget 200 / ratio 0.1  |  1731 |     231 |    240 | 1.15 | 18.7% |")
        .contains("| budget 400 / ratio 0.2  |  1974 |     474 |    154 | 1.32 | 14.9% |")
        .contains("| budget 500 / ratio 0.25 |  2115 |     615 |     66 | 1.41 |  9.3% |")
        .contains("| budget 600 / ratio 0.3  |  2235 |     735 |      0 | 1.49 |  5.2% |");
  }

  @Test
  void everyParameterIsAFlagAndCsvIsMachineReadable() {
    assertThat(levee("retry-budget", "--seed", "7", "--rate", "2", "--horizon", "100", "--max-attempts", "3",
        "--outage-end", "10", "--degraded-end", "50", "--degraded-fail-rate", "0.5", "--budgets", "10/0.5",
        "--format", "csv")).isZero();

    String[] lines = out.toString().split("\n");
    assertThat(lines[0]).isEqualTo("policy,calls,retries,denied,amplification,loss");
    assertThat(lines).hasSize(4); // header, immediate, jitter, one budget
    assertThat(lines[3]).startsWith("budget 10 / ratio 0.5,");
  }

  @Test
  void jsonCarriesFullPrecision() {
    assertThat(levee("retry-budget", "--budgets", "200/0.1", "--format", "JSON")).isZero();

    assertThat(out.toString()).contains("{\"policy\": \"immediate retry\", \"calls\": 2231, \"retries\": 731, "
        + "\"denied\": 0, \"amplification\": 1.4873333333333334, \"loss\": 0.074}");
  }

  @Test
  void aMalformedBudgetIsAUsageError() {
    assertThat(levee("retry-budget", "--budgets", "200")).isEqualTo(2);

    assertThat(err.toString()).contains("max/ratio");
  }

  @Test
  void overloadPrintsEveryPolicyAndWritesAnSvgChart(@TempDir Path dir) throws Exception {
    Path chart = dir.resolve("charts/overload.svg");

    assertThat(levee("overload", "--horizon", "240", "--warmup", "60", "--trigger-start", "90",
        "--trigger-end", "110", "--chart", chart.toString())).isZero();

    assertThat(out.toString()).contains("immediate retry", "full jitter", "budget 100/0.1", "breaker",
        "budget 100/0.1 + breaker", "adaptive throttle K=2", "gRPC retry throttle 10/0.1", "never");
    String svg = Files.readString(chart);
    assertThat(svg).startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\"").endsWith("</svg>\n")
        .contains("gRPC retry throttle 10/0.1", "<polyline").doesNotContain("<script", "href=");
    assertThat(err.toString()).contains("chart written to");
  }

  /** Regression: an infinite rate or horizon looped forever counting arrivals; other bad values threw a stack trace. */
  @ParameterizedTest(name = "{0} {1} {2}")
  @CsvSource({
      "retry-budget, --rate, Infinity", "retry-budget, --horizon, Infinity", "retry-budget, --rate, -5",
      "retry-budget, --rate, 0", "retry-budget, --rate, NaN", "retry-budget, --horizon, -1",
      "retry-budget, --max-attempts, 0", "retry-budget, --degraded-fail-rate, 2", "retry-budget, --outage-end, 500",
      "overload, --rate, Infinity", "overload, --horizon, Infinity", "overload, --rate, -1", "overload, --horizon, 0",
      "overload, --max-attempts, 0", "overload, --success-latency, -1", "overload, --failure-latency, NaN",
      "overload, --throttle-k, 0", "overload, --throttle-window, 0", "overload, --grpc-max-tokens, 0",
  })
  void aBadValueIsAUsageErrorNotAStackTraceOrAHang(String study, String option, String value) {
    assertThat(levee(study, option, value)).isEqualTo(2);

    assertThat(err.toString()).doesNotContain("\tat ").contains("Usage:");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void simulateAloneAsksForASubcommand() {
    assertThat(levee()).isEqualTo(2);

    assertThat(err.toString()).contains("retry-budget", "overload");
  }
}
