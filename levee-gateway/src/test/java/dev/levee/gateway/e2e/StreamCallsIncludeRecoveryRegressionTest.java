package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.models.messages.Message;
import dev.levee.emulator.EmulatorOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression (issue 9, item 11): the access log said {@code calls=1} for a stream that needed
 * several calls, because the calls of its recovery were not counted. The record of a request now
 * counts them, and so does {@code levee_request_upstream_calls}. ({@code x-levee-attempts} goes out
 * with a stream's first byte, so it can only count the calls up to the commit point.)
 */
class StreamCallsIncludeRecoveryRegressionTest {

  private static final String CONFIG = """
      models:
        s:
          chain: [emu/emu-cut-5]
      policy:
        deadline: 10s
        attempt-timeout: 5s
        min-attempt-time: 10ms
        retry: { max-retries: 2, base-delay: 10ms, max-delay: 50ms }
        retry-budget: { max: 100, ratio: 0.5 }
        stream: { ttft-timeout: 1s, idle-timeout: 600ms, recovery-window: 8s }
      """;

  @Test
  void aStreamCutAndRecoveredOnceCountsTwoCalls() throws Exception {
    EmulatorOptions emulator = EmulatorOptions.builder().pingInterval(Duration.ofMillis(100)).build();
    try (Harness h = Harness.start(emulator, CONFIG)) {
      Message message = h.streamed(Harness.params("s", "count my calls"));

      assertThat(Harness.text(message)).isEqualTo(h.expectedText("count my calls"));
      assertThat(h.attempts("emu-cut-5")).hasSize(2); // the cut first call, then its continuation
      // the summary is registered at start (count 0), and a request is counted after its answer went
      // out: wait for the count itself, or the scrape can come first
      String metrics = h.awaitMetrics("levee_request_upstream_calls_count 1\n");
      assertThat(metrics).contains("levee_request_upstream_calls_count 1\n")
          .contains("levee_request_upstream_calls_sum 2.0")
          .contains("outcome=\"stream_complete\"");
    }
  }
}
