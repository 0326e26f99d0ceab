package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.tier.Tier;
import dev.levee.gateway.pipeline.LeveeHeaders;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A newcomer's trial (session 20): an alias {@code [opus, sonnet]} whose primary was slow but
 * answering went to T1, where only the reduced target (sonnet) was called; sonnet then failed, its
 * circuit opened, and for its whole open period every request got 503 in two milliseconds — the
 * working primary was never asked. At a reduced tier the reduced target is now first and the alias's
 * other targets follow as fallbacks, so a lower tier is never worse than T0; the answer's {@code
 * x-levee-degraded} names a reduced model only when that model answered.
 */
class ReducedTierNeverWorseThanT0RegressionTest {

  private static final String CONFIG = """
      models:
        smart: { chain: [emu/emu-ok, emu/emu-error-2-always] }
      features:
        chat: {}
      policy:
        retry: { max-retries: 0 }
        breaker: { failures: 2 }
      """;

  @Test
  void withTheReducedTargetsCircuitOpenTheAliasStillAnswersFromItsOtherTarget() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      h.gateway.tiers().controller("chat").force(Tier.T1, Duration.ofMinutes(5));

      for (int i = 0; i < 5; i++) {
        HttpResponse<String> answer = h.post("/v1/messages", body(i), Map.of("x-api-key", "sk-a",
            "x-levee-feature", "chat"));

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.headers().firstValue(LeveeHeaders.TIER)).hasValue("T1");
        assertThat(answer.headers().firstValue(LeveeHeaders.MODEL)).hasValue("emu/emu-ok");
        assertThat(answer.headers().firstValue(LeveeHeaders.DEGRADED).orElse(""))
            .as("the reduced model did not answer").doesNotContain("reduced model");
      }
      assertThat(h.attempts("emu-error-2-always")).as("its circuit opened, then it was skipped").hasSize(2);
    }
  }

  private static String body(int i) {
    return "{\"model\":\"smart\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hello " + i + "\"}]}";
  }
}
