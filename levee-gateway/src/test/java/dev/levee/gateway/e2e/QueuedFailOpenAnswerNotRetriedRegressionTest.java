package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.Scenario;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression: when every target failed and a fail-open feature's outage queue kept the request,
 * the 200 placeholder naming the job still carried the final failure's {@code x-should-retry:
 * false} and the upstream's {@code retry-after}: headers that speak of a failure on an answer
 * that is not one, and that a client reading {@code retry-after} takes as "send it again",
 * queueing the same work twice. Accepted work now answers without either; the fail-closed 503
 * naming the job keeps both (a final error, and when to ask for the job's answer).
 */
class QueuedFailOpenAnswerNotRetriedRegressionTest {

  private static final String CONFIG = """
      policy:
        retry: { max-retries: 0 }
      models:
        smart: { chain: [emu/claude-a] }
      features:
        chat: { on-outage: queue }
        reports: { fail-mode: closed, on-outage: queue }
      queue:
        folder: ${QUEUE}
        secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
      """;

  @Test
  void aRequestQueuedFailOpenCarriesNoRetryHeaders() throws Exception {
    Scenario limited = Scenario.builder().phase(Scenario.Phase.builder().to(Duration.ofHours(1)).status(429)
        .retryAfter(Duration.ofSeconds(30)).build()).build();
    try (Harness h = Harness.start(EmulatorOptions.builder().scenario(limited).build(),
        CONFIG)) {
      HttpResponse<String> open = send(h, "chat");
      HttpResponse<String> closed = send(h, "reports");

      assertThat(open.statusCode()).as(open.body()).isEqualTo(200);
      assertThat(open.headers().firstValue("x-levee-job")).isPresent();
      assertThat(open.headers().firstValue("x-should-retry")).as("accepted work").isEmpty();
      assertThat(open.headers().firstValue("retry-after")).as("accepted work").isEmpty();

      assertThat(closed.statusCode()).as(closed.body()).isEqualTo(503);
      assertThat(closed.headers().firstValue("x-levee-job")).isPresent();
      assertThat(closed.headers().firstValue("x-should-retry")).hasValue("false");
      assertThat(closed.headers().firstValue("retry-after")).hasValue("30");
    }
  }

  private static HttpResponse<String> send(Harness h, String feature) throws Exception {
    return h.post("/v1/messages",
        "{\"model\":\"smart\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"later\"}]}",
        Map.of("x-api-key", "sk-a", "x-levee-feature", feature));
  }
}
