package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.emulator.EmulatorOptions;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Newcomer trial, bug 1, through a gateway and the emulator: a fail-closed feature with {@code
 * on-outage: queue} answered a failed request 503 with {@code x-levee-job} and {@code
 * retry-after}; the client's retry with the same {@code idempotency-key} queued a second job and
 * the upstream generated the answer twice. Now the retry refers to the first job — the same 503
 * while it waits, its answer once it ended — and the upstream generates once.
 */
class QueuedRetryWithIdempotencyKeyRegressionTest {

  private static final String MODEL = "emu-500-once"; // a conversation's first call fails, the next answers

  @AutoClose
  private Harness harness;

  @Test
  void aRetryWithTheKeyGetsTheSameJobAndTheUpstreamGeneratesOnce() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), """
        policy:
          retry: { max-retries: 0 }
        models:
          flaky: { chain: [emu/%s] }
        features:
          default: { fail-mode: closed, on-outage: queue }
        queue:
          folder: ${QUEUE}
          secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=   # the client's key is kept sealed
          poll: 50ms
          retry-delay: 50ms
        """.formatted(MODEL));
    harness.gateway.work().workers().hold(true); // the job waits until the test lets it run
    String body = "{\"model\":\"flaky\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"idem-dup-check\"}]}";
    Map<String, String> headers = Map.of("x-api-key", "sk-ant-test", "anthropic-version", "2023-06-01",
        "content-type", "application/json", "idempotency-key", "k2");

    HttpResponse<String> first = harness.post("/v1/messages", body, headers);
    String job = first.headers().firstValue("x-levee-job").orElseThrow();
    HttpResponse<String> whileQueued = harness.post("/v1/messages", body, headers);

    assertThat(first.statusCode()).isEqualTo(503);
    assertThat(first.headers().firstValue("retry-after")).isPresent();
    assertThat(whileQueued.statusCode()).isEqualTo(503);
    assertThat(whileQueued.headers().firstValue("x-levee-job")).hasValue(job);
    assertThat(whileQueued.headers().firstValue("idempotent-replayed")).hasValue("true");
    assertThat(whileQueued.body()).isEqualTo(first.body());
    JsonNode waiting = Json.tryParse(harness.getWith("/v1/levee/jobs/" + job, "sk-ant-test").body());
    assertThat(waiting.get("state").asText()).isEqualTo("queued");
    assertThat(waiting.has("callback_state")).as("present, null without a callback").isTrue();
    assertThat(waiting.get("callback_state").isNull()).isTrue();
    assertThat(waiting.get("waiting_reason").asText()).isNotEmpty();

    harness.gateway.work().workers().hold(false);
    JsonNode done = awaitEnded(job);
    HttpResponse<String> afterwards = harness.post("/v1/messages", body, headers);

    assertThat(done.get("state").asText()).isEqualTo("succeeded");
    assertThat(done.get("waiting_reason").isNull()).isTrue();
    assertThat(afterwards.statusCode()).isEqualTo(200);
    assertThat(afterwards.headers().firstValue("x-levee-job")).hasValue(job);
    assertThat(afterwards.headers().firstValue("idempotent-replayed")).hasValue("true");
    assertThat(Json.tryParse(afterwards.body())).isEqualTo(done.at("/result/body"));
    assertThat(harness.attempts(MODEL)).as("the failed call, then the job's one generation").hasSize(2);
  }

  private JsonNode awaitEnded(String job) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    JsonNode view;
    do {
      Thread.sleep(50); // polling a real server, as a client would
      view = Json.tryParse(harness.getWith("/v1/levee/jobs/" + job, "sk-ant-test").body());
    } while (!view.get("state").asText().matches("succeeded|failed|cancelled|expired") && System.nanoTime() < until);
    return view;
  }
}
