package dev.levee.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Regression (users coming from other gateways): {@code ./levee gateway --config levee.yaml} was
 * refused as an unknown command; only {@code serve} ran the gateway. {@code gateway} is now an alias
 * of {@code serve}: the same command, its help and its checks, shown beside {@code serve} in {@code
 * levee --help} rather than as a command of its own.
 */
class GatewayIsServeRegressionTest {

  @TempDir
  Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int levee(String... args) {
    CommandLine cli = Levee.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  @Test
  void gatewayHelpIsServesHelp() {
    assertThat(levee("gateway", "--help")).as(err.toString()).isZero();

    assertThat(out.toString()).contains("Run the gateway: an Anthropic Messages API endpoint", "--config=FILE", "--port=PORT");
  }

  @Test
  void gatewayRunsServeWithItsChecks() throws Exception {
    Path config = Files.writeString(dir.resolve("levee.yaml"),
        "upstreams:\n  a:\n    url: http://127.0.0.1:1\ntiers:\n  webhook: not a url\n");

    assertThat(levee("gateway", "--config", config.toString())).as(err.toString()).isEqualTo(2);
    assertThat(err.toString()).contains("line 5, column 12: tiers.webhook: not an absolute http(s) URL");
  }

  @Test
  void theCommandListShowsGatewayBesideServeNotAsACommandOfItsOwn() {
    assertThat(levee("--help")).isZero();

    assertThat(out.toString().lines().filter(line -> line.strip().startsWith("serve"))).singleElement()
        .satisfies(line -> assertThat(line.strip()).startsWith("serve, gateway "));
    assertThat(out.toString().lines().filter(line -> line.strip().startsWith("gateway"))).isEmpty();
  }
}
