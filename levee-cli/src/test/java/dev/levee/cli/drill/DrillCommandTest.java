package dev.levee.cli.drill;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.levee.anthropic.Json;
import dev.levee.cli.Levee;
import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.Gateway;
import dev.levee.gateway.config.ConfigLoader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code levee drill} against its embedded pair on virtual time (a 180 s storm takes a few real
 * seconds; the speed only caps how fast virtual time may run, so a loaded machine just runs it
 * slower): it passes, writes its report and posts one summary; a storm the cache cannot absorb
 * fails it with exit 1; usage errors exit 2.
 */
class DrillCommandTest {

  private static final String FAST = "100000";

  @TempDir
  Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @Test
  void aCompressedDrillPassesWritesItsReportAndPostsOneSummary() throws Exception {
    List<String> posted = new CopyOnWriteArrayList<>();
    HttpServer hook = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    hook.createContext("/hook", exchange -> {
      posted.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    hook.start();
    Path report = dir.resolve("reports/drill.html");
    int status;
    try {
      status = run("drill", "--speed", FAST, "--report", report.toString(),
          "--webhook", "http://127.0.0.1:" + hook.getAddress().getPort() + "/hook");
    } finally {
      hook.stop(0);
    }

    assertThat(status).as(out + "\n" + err).isZero();
    assertThat(out.toString()).contains("Levee drill passed").contains("report: " + report.toAbsolutePath());
    String html = Files.readString(report);
    assertThat(html).startsWith("<!DOCTYPE html>").contains("passed")
        .contains("tier at T2 or below after the storm starts", "storm requests answered from the cache",
            "tier back at T0 after the storm ends")
        .contains("Tier of feature default", "Answers by source", "Upstream calls", "Retry budget");
    assertThat(html.split("<svg", -1)).as("four inline charts").hasSize(5);
    assertThat(html).doesNotContain("<script").doesNotContain("http://127.0.0.1:").doesNotContain("src=");
    assertThat(posted).as("one summary posted").hasSize(1);
    JsonNode message = Json.tryParse(posted.getFirst());
    assertThat(message.path("text").asText()).startsWith("✅ Levee drill passed").contains("🟢 T0", "🟠 T2");
  }

  @Test
  void aStormTheCacheCannotAbsorbFailsTheDrillWithExitOne() {
    // every question is new, so nothing asked during the storm can come from the cache
    int status = run("drill", "--speed", FAST, "--duration", "60s", "--mix", "1000000");

    assertThat(status).as(out + "\n" + err).isEqualTo(1);
    assertThat(out.toString()).contains("❌ Levee drill FAILED").contains("❌ storm requests answered from the cache: 0.00");
  }

  @Test
  void aRunningPairIsDrilledOverHttpOnTheWallClock() throws Exception {
    Emulator emulator = Emulator.start(EmulatorOptions.builder().timeToFirstToken(Duration.ZERO)
        .deltaDelay(Duration.ZERO).build());
    try (emulator; Gateway gateway = Gateway.start(new ConfigLoader(Map.of("EMU", emulator.baseUrl())::get)
        .parse(Pair.CONFIG + "queue: { folder: '" + dir.resolve("queue") + "' }\n", "running pair"))) {
      Path report = dir.resolve("running.html");

      // 30x: 2 s of calm, a 2 s storm, at most 11 s of recovery; the tiers run on real time, so the
      // outcome depends on the machine's speed and only the plumbing is asserted
      int status = run("drill", "--gateway", gateway.baseUrl().toString(), "--emulator", emulator.baseUrl(),
          "--speed", "30", "--duration", "60s", "--report", report.toString());

      assertThat(status).as(out + "\n" + err).isIn(0, 1);
      assertThat(out.toString()).contains("against the gateway at " + gateway.baseUrl())
          .contains("tier at T2 or below after the storm starts").contains("report: ");
      assertThat(emulator.log()).as("the storm was scheduled on the emulator")
          .anyMatch(e -> e.status() == 429).anyMatch(e -> e.status() == 200);
      assertThat(Files.readString(report)).contains("at 30x speed");
    }
  }

  @Test
  void anUnreachablePairExitsThree() {
    assertThat(run("drill", "--gateway", "http://127.0.0.1:1", "--emulator", "http://127.0.0.1:1")).isEqualTo(3);
    assertThat(err.toString()).contains("could not run");
  }

  @Test
  void usageErrorsExitTwoAndSayWhatIsWrong() {
    assertThat(run("drill", "--gateway", "http://127.0.0.1:1")).isEqualTo(2);
    assertThat(err.toString()).contains("--gateway and --emulator go together");
    assertThat(run("drill", "--speed", "0")).isEqualTo(2);
    assertThat(run("drill", "--storm-share", "1.5")).isEqualTo(2);
    assertThat(run("drill", "--duration", "soon")).isEqualTo(2);
    assertThat(run("drill", "--no-such-option")).isEqualTo(2);
  }

  private int run(String... args) {
    CommandLine cli = Levee.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }
}
