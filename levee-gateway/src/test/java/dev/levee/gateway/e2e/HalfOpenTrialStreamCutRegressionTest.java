package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.models.messages.Message;
import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Target;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import dev.levee.gateway.GatewayClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 9, item 11: a stream serving as a half-open trial that was cut after its commit point
 * reopened the breaker — and the reopened breaker then refused the stream's own recovery on its
 * only target, so the client got an error for an answer the target could have finished.
 *
 * <p>The gateway's policies run on virtual time (the breaker's open period passes at once); the
 * emulator answers on real time.
 */
class HalfOpenTrialStreamCutRegressionTest {

  private static final Target CUT = new Target("emu", "emu-cut-5");

  @Test
  void aCutTrialStreamIsRecoveredOnItsOwnTargetAndTheRecoveryClosesTheBreaker() throws Exception {
    String config = """
        models:
          s:
            chain: [emu/emu-cut-5]
        policy:
          retry: { max-retries: 0 }
          breaker: { failures: 1, open-for: 10s, close-after: 1 }
        """;
    ManualClock clock = new ManualClock();
    GatewayClock virtual = VirtualTime.gateway(clock, 3);
    try (Harness h = Harness.start(EmulatorOptions.defaults(), config, "", virtual)) {
      CircuitBreaker breaker = h.gateway.chain().breakers().of(CUT);
      ((CircuitBreaker.Admitted) breaker.tryAcquire()).permit().failure(); // an earlier failure opened it
      assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
      clock.advance(Duration.ofSeconds(10)); // the next call is a half-open trial

      String prompt = "a trial that is cut";
      Message message = h.streamed(Harness.params("s", prompt));

      assertThat(Harness.text(message)).isEqualTo(h.expectedText(prompt));
      assertThat(h.attempts("emu-cut-5")).extracting(LogEntry::action).containsExactly("cut@5", "ok");
      assertThat(breaker.state()).as("the recovery was the trial that succeeded").isEqualTo(CircuitState.CLOSED);
    }
  }
}
