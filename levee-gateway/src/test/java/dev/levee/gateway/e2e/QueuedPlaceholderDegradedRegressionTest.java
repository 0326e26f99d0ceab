package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.Scenario;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 8 newcomer trial): when every target failed, a fail-open feature that queues
 * on outage answered 200 with a placeholder message ({@code stop_reason: end_turn}, no usage) and
 * its job id, but without {@code x-levee-degraded}, which the docs promise on every answer that is
 * not the full one. Only {@code x-levee-job} told a client it was not the real answer.
 */
class QueuedPlaceholderDegradedRegressionTest {

  @Test
  void aQueuedPlaceholderAnswerSaysItIsDegraded() throws Exception {
    Scenario outage = Scenario.builder().phase(Scenario.Phase.builder().to(Duration.ofHours(1)).status(503).build())
        .build();
    try (Harness h = Harness.start(EmulatorOptions.builder().scenario(outage).build(), """
        policy:
          retry: { max-retries: 0 }
        models:
          smart: { chain: [emu/claude-a] }
        features:
          chat: { on-outage: queue }
        queue:
          folder: ${QUEUE}
          secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
        """)) {
      HttpResponse<String> placeholder = h.post("/v1/messages",
          "{\"model\":\"smart\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"later\"}]}",
          Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01", "content-type", "application/json",
              "x-levee-feature", "chat"));

      assertThat(placeholder.statusCode()).as("fail-open: a message the client can show").isEqualTo(200);
      assertThat(placeholder.headers().firstValue("x-levee-job")).isPresent();
      assertThat(placeholder.headers().firstValue("x-levee-degraded")).as("not the real answer")
          .hasValueSatisfying(why -> assertThat(why).contains("queued"));
    }
  }
}
