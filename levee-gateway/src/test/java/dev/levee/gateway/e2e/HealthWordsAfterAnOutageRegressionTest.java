package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.Scenario;
import dev.levee.gateway.GatewayClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Newcomer trial: {@code /health}'s word for a target went back and forth while an outage healed.
 *
 * <ul>
 *   <li>After a trial closed its circuit, the target read {@code insufficient_data} and then {@code
 *       degraded}: its one-minute window still held the outage's failures beside the trial's
 *       success. Now the window starts afresh at the close (as the tiers' windows do), and within a
 *       minute of the close a few calls take the breaker's word: {@code healthy}.
 *   <li>A target nothing had called for a minute (its alias answered by its fallback) read {@code
 *       unhealthy} with 0 calls, its circuit open but its open period long over. With no fresh
 *       evidence it now reads {@code awaiting_trial}: the next call to it is the trial.
 * </ul>
 *
 * <p>One gateway and emulator on one manual clock; {@code claude-sick} answers 529 for the first 20 s.
 */
class HealthWordsAfterAnOutageRegressionTest {

  private final ManualClock clock = new ManualClock();
  private Harness harness;

  @BeforeEach
  void start() throws Exception {
    EmulatorOptions options = EmulatorOptions.builder().ticker(clock).sleeper(clock)
        .timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO)
        .scenario(Scenario.builder().phase(Scenario.Phase.builder().model("claude-sick").to(Duration.ofSeconds(20))
            .status(529).build()).build())
        .build();
    GatewayClock virtual = new GatewayClock(clock, clock, InstantSource.system(), new SplittableRandom(7), clock);
    harness = Harness.start(options, """
        policy:
          deadline: 10s
          attempt-timeout: 5s
          min-attempt-time: 10ms
          retry: { max-retries: 0 }
          breaker: { failures: 3, window: 30s, open-for: 10s, close-after: 1 }
        models:
          chat: { chain: [emu/claude-sick, emu/claude-ok] }
        """, "", virtual);
  }

  @AfterEach
  void stop() throws Exception {
    harness.close();
  }

  private void answered(String prompt) throws Exception {
    HttpResponse<String> r = harness.post("/v1/messages",
        "{\"model\":\"chat\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}",
        Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01", "content-type", "application/json"));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
  }

  private JsonNode sick() throws Exception {
    return Json.tryParse(harness.get("/health").body()).path("targets").path("emu/claude-sick");
  }

  /** Three requests in the outage: each answered by the fallback; the sick target's circuit opens. */
  private void outage() throws Exception {
    for (int i = 0; i < 3; i++) {
      answered("outage " + i);
    }
    assertThat(sick().path("circuit").asText()).isEqualTo("OPEN");
    assertThat(sick().path("health").asText()).isEqualTo("unhealthy");
  }

  @Test
  void aTargetWhoseTrialClosedItsCircuitReadsHealthyFromThenOn() throws Exception {
    outage();
    clock.advance(Duration.ofSeconds(21)); // healed, the open period over

    List<String> words = new ArrayList<>();
    for (int i = 0; i < 4; i++) { // the first is the trial; then the circuit is closed
      answered("healed " + i);
      JsonNode sick = sick();
      assertThat(sick.path("circuit").asText()).isEqualTo("CLOSED");
      words.add(sick.path("health").asText() + " (" + sick.path("calls") + " calls, " + sick.path("failed") + " failed)");
    }

    assertThat(words).as("old: insufficient_data, then degraded on the outage's failures")
        .containsExactly("healthy (1 calls, 0 failed)", "healthy (2 calls, 0 failed)", "healthy (3 calls, 0 failed)",
            "healthy (4 calls, 0 failed)");
  }

  @Test
  void aTargetNothingCalledForAMinuteIsAwaitingItsTrialNotUnhealthy() throws Exception {
    outage();
    clock.advance(Duration.ofSeconds(70)); // healed; no request since: the window is empty

    JsonNode waiting = sick();
    assertThat(waiting.path("calls").asLong()).isZero();
    assertThat(waiting.path("trial_ready").asBoolean()).isTrue();
    assertThat(waiting.path("health").asText()).as("old: unhealthy with 0 calls").isEqualTo("awaiting_trial");

    answered("the trial");
    assertThat(sick().path("health").asText()).isEqualTo("healthy");
  }
}
