package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.core.http.HttpResponseFor;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import dev.levee.core.tier.Tier;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): below T0, every answer from upstream said {@code x-levee-degraded:
 * T1: reduced model}, even when the reduced target was the model the chain starts with (a
 * one-target alias) and nothing else was cut: a reduction the client could not see. The header now
 * names what the tier changed — the model, a capped {@code max_tokens}, removed thinking — and is
 * absent when it changed nothing ({@code x-levee-tier} still says T1).
 */
class DegradedSaysWhatChangedRegressionTest {

  private static final String CONFIG = "models:\n  solo:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY;

  @Test
  void aOneTargetAliasAtT1SaysOnlyWhatWasCut() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      h.gateway.tiers().controller("default").force(Tier.T1, Duration.ofMinutes(5));

      HttpResponseFor<Message> small = h.sdk.messages().withRawResponse().create(params(100));
      HttpResponseFor<Message> large = h.sdk.messages().withRawResponse().create(params(4096));

      assertThat(small.headers().values("x-levee-tier")).containsExactly("T1");
      assertThat(small.headers().values("x-levee-degraded")).as("same model, max_tokens under the cap").isEmpty();
      assertThat(large.headers().values("x-levee-degraded")).containsExactly("T1: max_tokens 4096 capped at 1024");
      assertThat(large.parse().model().asString()).isEqualTo("emu-ok");
    }
  }

  private static MessageCreateParams params(long maxTokens) {
    return MessageCreateParams.builder().model("solo").maxTokens(maxTokens).addUserMessage("hello").build();
  }
}
