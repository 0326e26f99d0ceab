package dev.levee.cli;

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

/**
 * Regression (issue 9, item 8): these mistakes printed Java stack traces (or "null") and exited
 * with 1. Each is one line on stderr naming what is wrong, with exit code 2.
 */
class CliMistakesRegressionTest {

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

  private void assertOneLineMistake(int exit, String... expected) {
    assertThat(exit).as(err.toString()).isEqualTo(2);
    assertThat(err.toString().strip().lines()).as(err.toString()).hasSize(1);
    assertThat(err.toString()).contains(expected).doesNotContain("Exception", "\tat ", "null");
  }

  @Test
  void aWebhookThatIsNotAUrl() throws Exception {
    Path config = write("levee.yaml", "upstreams:\n  a:\n    url: http://127.0.0.1:1\ntiers:\n  webhook: not a url\n");

    assertOneLineMistake(levee("serve", "--config", config.toString()),
        "line 5, column 12: tiers.webhook: not an absolute http(s) URL");
  }

  @ParameterizedTest
  @CsvSource({"serve, -1", "serve, 70000", "serve, http", "emulator, 99999", "emulator, -3"})
  void aPortOutOfRange(String command, String port) throws Exception {
    Path config = write("levee.yaml", "upstreams:\n  a:\n    url: http://127.0.0.1:1\n");

    int exit = command.equals("serve") ? levee("serve", "--config", config.toString(), "--port", port)
        : levee("emulator", "--port", port);

    assertOneLineMistake(exit, "--port", "'" + port + "' is not a port (0 to 65535)");
  }

  @Test
  void aScenarioFileThatDoesNotExist() {
    assertOneLineMistake(levee("demo", "--scenario", dir.resolve("nonexistent.yaml").toString()),
        "bad scenario", "nonexistent.yaml: no such file");
    assertThat(out.toString()).isEmpty(); // no drill started
  }

  @Test
  void anInvalidScenario() throws Exception {
    Path scenario = write("incident.yaml", "phases:\n  - model: x\n    status: 777\n");

    assertOneLineMistake(levee("demo", "--scenario", scenario.toString()), "bad scenario", "status", "777");
  }

  @Test
  void anEmulatorScenarioThatIsADirectory() {
    assertOneLineMistake(levee("emulator", "--port", "0", "--scenario", dir.toString()), "cannot read the scenario");
  }

  @Test
  void anAddressThatDoesNotExist() throws Exception {
    assertOneLineMistake(levee("emulator", "--host", "999.1.1.1", "--port", "0"),
        "cannot listen on 999.1.1.1:0: no such address");

    Path config = write("levee.yaml",
        "server:\n  host: 999.1.1.1\n  port: 0\nupstreams:\n  a:\n    url: http://127.0.0.1:1\n"
            + "queue:\n  folder: '" + dir.resolve("queue") + "'\n"); // not levee-data/ in the working directory
    err.getBuffer().setLength(0);
    assertOneLineMistake(levee("serve", "--config", config.toString()), "cannot listen on 999.1.1.1:0: no such address");
  }

  @Test
  void anUnknownOptionOrMissingConfigIsOneLineNotTheWholeUsage() {
    assertOneLineMistake(levee("serve"), "levee serve: Missing required option", "(levee serve --help)");
    err.getBuffer().setLength(0);
    assertOneLineMistake(levee("emulator", "--colour"), "levee emulator: Unknown option: '--colour'");
  }

  private Path write(String name, String text) throws Exception {
    return Files.writeString(dir.resolve(name), text);
  }
}
