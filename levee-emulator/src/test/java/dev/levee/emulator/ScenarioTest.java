package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.time.ManualClock;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Scripted incidents: phases on the emulator's ticker, and the YAML form with its errors. */
class ScenarioTest {

  private static final String INCIDENT = """
      # a compressed outage of one model
      seed: 7
      phases:
        - model: claude-sonnet-4-5
          to: 20s
          status: 529
        - model: claude-sonnet-4-5
          from: 20s
          to: 120s
          status: 529
          rate: 0.4
        - model: claude-haiku-*
          from: 5s
          to: 10s
          status: 429
          retry-after: 3s
        - model: "*"
          from: 200s
          ttft: 800ms
      """;

  private final ManualClock clock = new ManualClock();

  private Emulator start(Scenario scenario) {
    return Emulator.start(EmulatorOptions.builder().scenario(scenario).ticker(clock).sleeper(clock)
        .timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO).build());
  }

  @Test
  void phasesFollowTheTickerFromStartAndRestartOnReset() throws Exception {
    try (Emulator emulator = start(Scenario.parse(INCIDENT, "incident.yaml"))) {
      Wire wire = new Wire(emulator);

      assertThat(status(wire, "claude-sonnet-4-5")).isEqualTo(529);
      assertThat(status(wire, "claude-haiku-4-5")).isEqualTo(200);
      clock.advance(Duration.ofSeconds(6));
      HttpResponse<String> limited = wire.post("/v1/messages", Wire.body("claude-haiku-4-5", false, "hi"));
      assertThat(limited.statusCode()).isEqualTo(429);
      assertThat(limited.headers().firstValue("retry-after")).contains("3");
      clock.advance(Duration.ofSeconds(15)); // 21 s: 40 % of requests fail
      List<Integer> statuses = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        statuses.add(status(wire, "claude-sonnet-4-5"));
      }
      assertThat(statuses).containsOnly(200, 529);
      assertThat(statuses.stream().filter(s -> s == 529).count()).isBetween(10L, 30L);
      clock.advance(Duration.ofSeconds(100)); // 121 s: healthy
      assertThat(status(wire, "claude-sonnet-4-5")).isEqualTo(200);
      clock.advance(Duration.ofSeconds(80)); // 201 s: slow first token for every model
      wire.message(Wire.body("emu-ok", false, "hi"));
      assertThat(emulator.log().getLast().ttftMs()).isEqualTo(800);
      assertThat(emulator.log().getLast().atMs()).isEqualTo(201_000);

      emulator.reset();

      assertThat(status(wire, "claude-sonnet-4-5")).isEqualTo(529);
      assertThat(emulator.log()).hasSize(1);
      assertThat(emulator.log().getFirst().atMs()).isZero();
    }
  }

  @Test
  void theSameSeedDrawsTheSameFailuresAfterAReset() throws Exception {
    Scenario flaky = Scenario.builder().seed(3).phase(Scenario.Phase.builder().status(503).rate(0.5).build()).build();
    try (Emulator emulator = start(flaky)) {
      Wire wire = new Wire(emulator);
      List<Integer> first = new ArrayList<>();
      List<Integer> second = new ArrayList<>();

      for (int i = 0; i < 20; i++) {
        first.add(status(wire, "emu-ok"));
      }
      emulator.reset();
      for (int i = 0; i < 20; i++) {
        second.add(status(wire, "emu-ok"));
      }

      assertThat(first).contains(200, 503).isEqualTo(second);
    }
  }

  @Test
  void aScenarioBuiltInCodeActsLikeTheFile() throws Exception {
    Scenario scenario = Scenario.builder()
        .phase(Scenario.Phase.builder().model("claude-sonnet-4-5").to(Duration.ofSeconds(20)).status(529).build())
        .phase(Scenario.Phase.builder().model("claude-sonnet-4-5").from(Duration.ofSeconds(20))
            .to(Duration.ofSeconds(120)).status(529).rate(0.4).build())
        .phase(Scenario.Phase.builder().model("claude-haiku-*").from(Duration.ofSeconds(5))
            .to(Duration.ofSeconds(10)).status(429).retryAfter(Duration.ofSeconds(3)).build())
        .phase(Scenario.Phase.builder().from(Duration.ofSeconds(200)).ttft(Duration.ofMillis(800)).build())
        .seed(7).build();

    assertThat(Scenario.parse(INCIDENT, "incident.yaml")).isEqualTo(scenario);
  }

  @Test
  void aPhaseFailureDoesNotCountAsTheModelsFirstAttempt() throws Exception {
    Scenario outage = Scenario.builder()
        .phase(Scenario.Phase.builder().to(Duration.ofSeconds(1)).status(503).build()).build();
    try (Emulator emulator = start(outage)) {
      Wire wire = new Wire(emulator);

      assertThat(status(wire, "emu-500-once")).isEqualTo(503);
      clock.advance(Duration.ofSeconds(1));
      assertThat(status(wire, "emu-500-once")).isEqualTo(500);
      assertThat(status(wire, "emu-500-once")).isEqualTo(200);
    }
  }

  @Test
  void loadReadsAFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("incident.yaml");
    Files.writeString(file, INCIDENT);

    assertThat(Scenario.load(file)).isEqualTo(Scenario.parse(INCIDENT, "x"));
  }

  @Test
  void badFilesNameTheLineAndTheKey() {
    assertProblem("phases:\n  - status: 404\n", 2, "phases[0].status", "must be one of 200, 429, 500, 503, 529");
    assertProblem("phases:\n  - status: 529\n    stauts: 429\n", 3, "phases[0].stauts", "unknown key");
    assertProblem("phases:\n  - from: 10s\n    to: 5s\n", 3, "phases[0].to", "must be after 'from'");
    assertProblem("phases:\n  - ttft: soon\n", 2, "phases[0].ttft", "expected a duration like 500ms, 20s or 2m");
    assertProblem("seed: 1\nphases:\n  - rate: 1.5\n    status: 529\n", 3, "phases[0].rate", "within 0..1");
    assertProblem("seed: 1\nphase: []\n", 2, "phase", "unknown key");
    assertProblem("seed: 1\n", 1, null, "expected a list under 'phases'");
    assertProblem("", 1, null, "empty");
    assertProblem("phases:\n  - status: [529\n", 2, null, "not valid YAML");
  }

  private static void assertProblem(String yaml, int line, String key, String problem) {
    assertThatThrownBy(() -> Scenario.parse(yaml, "bad.yaml"))
        .isInstanceOfSatisfying(ScenarioException.class, e -> {
          assertThat(e.line()).as(e.getMessage()).isEqualTo(line);
          assertThat(e.key()).as(e.getMessage()).isEqualTo(key);
          assertThat(e.getMessage()).startsWith("bad.yaml:" + line + ": ").contains(problem);
        });
  }

  private static int status(Wire wire, String model) throws Exception {
    return wire.post("/v1/messages", Wire.body(model, false, "hi")).statusCode();
  }
}
