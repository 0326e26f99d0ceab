package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.models.messages.batches.BatchCreateParams;
import com.anthropic.models.messages.batches.MessageBatch;
import dev.levee.emulator.EmulatorOptions;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Newcomer trial, session 11: a queued request's try (a batch request, an outage-queue job) was
 * counted in {@code levee_request_duration_seconds} and {@code levee_answers_total} as a client's
 * {@code /v1/messages} request, so the SLO burn-rate alerts (which sum that count) took a
 * backlog's failed retries as client 5xx and a draining batch's answers as client successes. Now a
 * try counts under {@code endpoint="queued"}, and no answer source.
 */
class QueuedTriesKeptOutOfClientMetricsRegressionTest {

  private static final String SECRET = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

  @Test
  void aBatchsRequestsCountUnderQueuedAndNeverAsMessagesOrAnswers() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), Harness.BASE_POLICY + """
        models:
          smart:
            chain: [emu/emu-ok]
        queue:
          folder: ${QUEUE}
          secret: %s
          poll: 50ms
        """.formatted(SECRET), "")) {
      BatchCreateParams.Builder params = BatchCreateParams.builder();
      IntStream.range(0, 3).forEach(i -> params.addRequest(BatchCreateParams.Request.builder().customId("q-" + i)
          .params(BatchCreateParams.Request.Params.builder().model("smart").maxTokens(16)
              .addUserMessage("question " + i).build()).build()));
      String id = h.sdk.messages().batches().create(params.build()).id();
      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      MessageBatch batch = h.sdk.messages().batches().retrieve(id);
      while (batch.processingStatus() != MessageBatch.ProcessingStatus.ENDED && System.nanoTime() < until) {
        Thread.sleep(50); // polling a real server, as a client would
        batch = h.sdk.messages().batches().retrieve(id);
      }
      assertThat(batch.requestCounts().succeeded()).isEqualTo(3);

      String queued = "levee_request_duration_seconds_count{alias=\"smart\",endpoint=\"queued\",feature=\"default\","
          + "status_class=\"2xx\",tier=\"T0\"} 3";
      String metrics = h.awaitMetrics(queued);
      assertThat(metrics).contains(queued);
      assertThat(Arrays.stream(metrics.split("\n")).filter(l -> l.startsWith("levee_request_duration_seconds_count{")
          && l.contains("endpoint=\"messages\""))).as("no client sent /v1/messages").isEmpty();
      assertThat(Arrays.stream(metrics.split("\n")).filter(l -> l.startsWith("levee_answers_total{")
          && !l.endsWith(" 0.0"))).as("a queued try is no client's answer").isEmpty();
    }
  }
}
