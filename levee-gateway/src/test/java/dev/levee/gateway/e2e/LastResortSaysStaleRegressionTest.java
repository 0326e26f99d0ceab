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
 * Regression (issue 9, item 11): when every target failed and an answer still within its hot TTL
 * stood in, it said {@code x-levee-cache: hit} where the docs say {@code stale}, and {@code
 * levee_cache_lookups_total{result="stale"}} stayed 0. Every last-resort answer is stale-if-error.
 */
class LastResortSaysStaleRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big]\n" + Harness.BASE_POLICY;

  @Test
  void aFreshAnswerServedAsTheLastResortIsMarkedAndCountedStale() throws Exception {
    ManualClock clock = new ManualClock();
    EmulatorOptions outage = VirtualTime.emulator(clock)
        .scenario(Scenario.builder().phase(Scenario.Phase.builder().from(Duration.ofMinutes(1)).status(529).build())
            .build())
        .build();
    GatewayClock virtual = VirtualTime.gateway(clock, 1);
    MessageCreateParams params = Harness.params("chat", "remember me");
    try (Harness h = Harness.start(outage, CONFIG, "", virtual)) {
      Message original = h.sdk.messages().create(params);
      clock.advance(Duration.ofMinutes(2)); // within the 10 min hot TTL, and the upstream is now down

      HttpResponseFor<Message> lastResort = h.sdk.messages().withRawResponse().create(params);

      assertThat(Harness.text(lastResort.parse())).isEqualTo(Harness.text(original));
      assertThat(lastResort.headers().values("x-levee-cache")).containsExactly("stale");
      assertThat(lastResort.headers().values("x-levee-degraded")).containsExactly("stale answer: every target failed");
      String stale = "levee_cache_lookups_total{result=\"stale\"} 1.0";
      String counted = "levee_requests_total{endpoint=\"messages\",outcome=\"last_resort_stale\",tier=\"T0\"} 1.0";
      // both are written after the answer went out, the lookup after the request's count: wait for both
      assertThat(h.awaitMetrics(stale, counted)).contains(stale).contains(counted);
    }
  }
}
