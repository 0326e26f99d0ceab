package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.core.http.HttpResponseFor;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.Scenario;
import dev.levee.gateway.GatewayClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A stale answer served as the last resort (every target failed) had no {@code x-levee-model},
 * though every other answer to "every target failed" names the last target that failed
 * (docs/gateway.md), and its access line said {@code target=-}. Both name it now.
 */
class StaleAnswerNamesTheLastTargetRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big, emu/claude-small]\n"
      + Harness.BASE_POLICY;

  @Test
  void aStaleAnswerSaysWhichTargetFailedLast() throws Exception {
    ManualClock clock = new ManualClock();
    EmulatorOptions outage = VirtualTime.emulator(clock)
        .scenario(Scenario.builder().phase(Scenario.Phase.builder().from(Duration.ofMinutes(1)).status(529).build())
            .build())
        .build();
    MessageCreateParams params = Harness.params("chat", "remember me");
    try (Harness h = Harness.start(outage, CONFIG, "", VirtualTime.gateway(clock, 1))) {
      HttpResponseFor<Message> fresh = h.sdk.messages().withRawResponse().create(params);
      clock.advance(Duration.ofMinutes(2)); // the upstream is down now

      HttpResponseFor<Message> stale = h.sdk.messages().withRawResponse().create(params);

      assertThat(fresh.headers().values("x-levee-model")).containsExactly("emu/claude-big");
      assertThat(stale.headers().values("x-levee-cache")).containsExactly("stale");
      assertThat(stale.headers().values("x-levee-model")).containsExactly("emu/claude-small");
    }
  }
}
