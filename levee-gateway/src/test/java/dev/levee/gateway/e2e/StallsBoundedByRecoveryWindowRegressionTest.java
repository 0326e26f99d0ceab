package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 7 newcomer trial): a stream whose target stalled on every call held its client
 * for 180 s with the defaults — each of the 5 recoveries waited out its own 30 s idle timeout —
 * although the request's deadline was 30 s. A stream is now not recovered from a stall once its
 * earlier stalls have spent a recovery window in silence: with the defaults it ends by ~60 s.
 */
class StallsBoundedByRecoveryWindowRegressionTest {

  private static final String CONFIG = """
      models:
        s:
          chain: [emu/emu-stall-5-always]
      policy:
        deadline: 10s
        attempt-timeout: 5s
        min-attempt-time: 10ms
        retry: { max-retries: 2, base-delay: 10ms, max-delay: 50ms }
        retry-budget: { max: 100, ratio: 0.5 }
        stream: { ttft-timeout: 1s, idle-timeout: 400ms, recovery-window: 700ms, max-resumes: 5 }
      """;

  @Test
  void aTargetThatKeepsStallingIsAskedUntilItsStallsHaveSpentARecoveryWindow() throws Exception {
    EmulatorOptions emulator = EmulatorOptions.builder().pingInterval(Duration.ofMillis(100)).build();
    try (Harness h = Harness.start(emulator, CONFIG)) {
      HttpResponse<String> response = h.post("/v1/messages",
          "{\"model\":\"s\",\"max_tokens\":64,\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
          Map.of("content-type", "application/json", "x-api-key", "sk-test", "anthropic-version", "2023-06-01"));

      assertThat(response.body()).contains("event: error").doesNotContain("message_stop")
          .contains("stalled for 1200 ms in all");
      // 0.4 s stalled, recovered; 0.8 s, recovered; a third stall: 0.8 s ≥ the 0.7 s window, not recovered
      assertThat(h.attempts("emu-stall-5-always")).hasSize(3); // without the bound: 6 (max-resumes 5)
    }
  }
}
