package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.models.messages.Message;
import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Target;
import org.junit.jupiter.api.Test;

/**
 * Review, on the wire: for an alias with {@code hedge:}, a healed primary that is slow to its
 * first byte (here 3 s, past the 500 ms hedge delay) lost its half-open trial to the hedge — the
 * fallback answered first, the trial was cancelled without a verdict, the circuit stayed HALF_OPEN,
 * and so on for every later trial. A trial is no longer hedged: it runs to its answer and closes
 * the circuit. Real time: the primary's breaker is opened by hand and its 1 s open period waited
 * out; the answer takes the primary's own 3 s.
 */
class HedgeStealsTrialEndToEndRegressionTest {

  private static final Target PRIMARY = Target.parse("emu/emu-slow-ttft-3000");

  private static final String CONFIG = """
      models:
        s:
          chain: [emu/emu-slow-ttft-3000, emu/emu-ok]
          hedge: { after: 500ms }
      policy:
        deadline: 30s
        attempt-timeout: 10s
        min-attempt-time: 10ms
        retry: { max-retries: 0 }
        breaker: { failures: 3, window: 30s, open-for: 1s, close-after: 1 }
      """;

  @Test
  void aSlowButHealedPrimaryKeepsItsTrialAndItsCircuitCloses() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      CircuitBreaker breaker = h.gateway.chain().breakers().of(PRIMARY);
      for (int i = 0; i < 3; i++) { // the outage, as the breaker saw it
        ((CircuitBreaker.Admitted) breaker.tryAcquire()).permit().failure();
      }
      assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
      Thread.sleep(1_100); // the open period passes: the next call to the primary is its trial

      Message message = h.sdk.messages().create(Harness.params("s", "the trial"));

      assertThat(message.model().asString()).as("old: the hedge on emu-ok answered and the trial was cancelled")
          .isEqualTo("emu-slow-ttft-3000");
      assertThat(breaker.state()).as("the trial's success closed the circuit").isEqualTo(CircuitState.CLOSED);
      assertThat(h.attempts("emu-ok")).as("no hedge for a trial").isEmpty();
    }
  }
}
