package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.GatewayClock;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): a client streamed once each to {@code emu-cut-5-always}, {@code
 * emu-error-3-always} and {@code emu-malformed-2-always}; 24 minutes later, with no traffic to those
 * names, their three breakers were still OPEN in {@code /health} ({@code open_remaining_ms: 0},
 * {@code trial_ready: true}), the top-level status stayed {@code degraded} though every configured
 * target was CLOSED, and {@code levee_state_evictions_total{table="breakers"}} was 0: the job
 * dispatcher asks the pause gate what to hold once a second, and the gate read every breaker
 * through {@code Breakers.of}, a use that kept each one from ever going idle.
 *
 * <p>The gateway runs on virtual time; the test asks the pause gate itself once a virtual minute
 * (the dispatcher's own polls run on real time, so they are not what the test counts on).
 */
class IdleClientNamedBreakersEvictedRegressionTest {

  private static final String CONFIG = """
      models:
        smart:
          chain: [emu/emu-ok]
      policy:
        deadline: 10s
        attempt-timeout: 5s
        min-attempt-time: 10ms
        retry: { max-retries: 2, base-delay: 10ms, max-delay: 50ms }
        breaker: { failures: 3, window: 60s, open-for: 30s }
        stream: { ttft-timeout: 3s, idle-timeout: 2s }
      features:
        default: { reduced: { target: emu/claude-small } }
      tiers:
        evaluate-every: 10s
      """;

  private static final List<String> FAILING = List.of("emu-cut-5-always", "emu-error-3-always", "emu-malformed-2-always");

  @Test
  void idleClientNamedBreakersAreEvictedAndNeverDegradeTheGateway() throws Exception {
    ManualClock clock = new ManualClock();
    GatewayClock virtual = VirtualTime.gateway(clock, 5);
    EmulatorOptions options = EmulatorOptions.builder().timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO).build();
    try (Harness h = Harness.start(options, CONFIG, "", virtual)) {
      assertThat(Harness.text(h.streamed(Harness.params("smart", "hello")))).isNotEmpty();
      for (String model : FAILING) {
        catchThrowable(() -> h.streamed(Harness.params(model, "hello")));
      }
      JsonNode before = Json.MAPPER.readTree(h.get("/health").body());
      assertThat(before.path("status").asText()).as("client-named circuits never degrade the gateway: " + before)
          .isEqualTo("healthy");
      for (String model : FAILING) {
        assertThat(before.path("targets").path("emu/" + model).path("circuit").asText()).as(model).isEqualTo("OPEN");
      }

      for (int minute = 0; minute < 24; minute++) { // the dispatcher's poll and a monitor's read
        clock.advance(Duration.ofMinutes(1));
        h.gateway.work().paused();
        assertThat(h.get("/health").statusCode()).isEqualTo(200);
      }

      JsonNode after = Json.MAPPER.readTree(h.get("/health").body());
      assertThat(after.path("status").asText()).as(after.toString()).isEqualTo("healthy");
      for (String model : FAILING) {
        assertThat(after.path("targets").has("emu/" + model)).as(model + " evicted: " + after).isFalse();
      }
      assertThat(after.path("targets").path("emu/emu-ok").path("circuit").asText()).isEqualTo("CLOSED");
      assertThat(evictions(h.get("/metrics").body(), "breakers")).isGreaterThanOrEqualTo(3);
      assertThat(h.gateway.chain().breakers().circuits().keySet()).extracting(t -> t.id())
          .as("configured targets' breakers are never evicted: chains and reduced targets")
          .contains("emu/emu-ok", "emu/claude-small");
      assertThat(after.path("targets").path("emu/claude-small").path("configured").asBoolean()).isTrue();
    }
  }

  static double evictions(String metrics, String table) {
    Matcher m = Pattern.compile("levee_state_evictions_total\\{table=\"" + table + "\"} (\\S+)").matcher(metrics);
    assertThat(m.find()).as(metrics).isTrue();
    return Double.parseDouble(m.group(1));
  }
}
