package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.models.messages.Message;
import dev.levee.core.tier.Tier;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.tier.TierBoard;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 5): the tiers' p99 rule read a JSON answer's whole time,
 * which grows with the answer's length, so a healthy model answering long JSON requests in a few
 * seconds kept its feature at T1 (reduced model, capped {@code max_tokens}) for as long as traffic
 * flowed, while {@code /health} called it healthy. The latency signal is now the time to first
 * token of streams only; JSON answers count as successes with no latency sample.
 *
 * <p>The emulator waits 120 ms before every answer; the thresholds are scaled down to match
 * ({@code p99-down: 60ms}), so each JSON answer is "slow" by the old rule and each stream's first
 * token is slow by the new one. One gateway serves both phases: the JSON phase must leave the
 * feature at T0, the stream phase (same target, same feature) must still step it down.
 */
class SlowJsonAnswersStayAtT0RegressionTest {

  private static final String CONFIG = """
      models:
        s:
          chain: [emu/emu-ok]
      tiers:
        evaluate-every: 1h      # the test evaluates the tiers itself
        min-volume: 3
        p99-down: 60ms
        healthy-p99: 30ms
      """ + Harness.BASE_POLICY;

  @Test
  void slowJsonAnswersAreNoLatencySignalButSlowFirstTokensOfStreamsAre() throws Exception {
    EmulatorOptions slow = EmulatorOptions.builder().timeToFirstToken(Duration.ofMillis(120)).build();
    try (Harness h = Harness.start(slow, CONFIG)) {
      TierBoard tiers = h.gateway.tiers();
      for (int i = 0; i < 4; i++) {
        Message answer = h.sdk.messages().create(Harness.params("s", "a long JSON answer " + i));
        assertThat(answer.model().asString()).isEqualTo("emu-ok");
      }
      tiers.evaluateAll();
      assertThat(tiers.currentTier("default", "s")).as("after slow JSON answers").isEqualTo(Tier.T0);

      for (int i = 0; i < 4; i++) {
        assertThat(Harness.text(h.streamed(Harness.params("s", "a slow first token " + i)))).isNotEmpty();
      }
      tiers.evaluateAll();
      assertThat(tiers.currentTier("default", "s")).as("after streams whose first token took 120 ms")
          .isEqualTo(Tier.T1);
      assertThat(tiers.cause("default", "s")).contains("p99");
    }
  }
}
