package dev.levee.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Regression (newcomer trial): {@code levee gateway --help} began {@code Usage: levee serve ...}
 * and never said {@code gateway} was that command, so the help looked like the wrong command's.
 * picocli names a command by its first name whichever was typed (remkop/picocli#2104); the help now
 * says that {@code levee gateway} is an alias of {@code levee serve}.
 */
class GatewayHelpNamesTheAliasRegressionTest {

  private String help(String command) {
    StringWriter out = new StringWriter();
    CommandLine cli = Levee.commandLine();
    cli.setOut(new PrintWriter(out, true));
    assertThat(cli.execute(command, "--help")).isZero();
    return out.toString().replaceAll("\\s+", " ");
  }

  @Test
  void gatewaysHelpSaysItIsServe() {
    assertThat(help("gateway")).contains("Usage: levee serve ", "levee gateway is the same command (an alias of levee serve).");
  }

  @Test
  void servesHelpSaysTheSame() {
    assertThat(help("serve")).contains("levee gateway is the same command (an alias of levee serve).");
  }
}
