package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Queued work on a {@link Harness} whose job store runs on the system's time (its workers poll for
 * real, whatever clock the gateway has): a queue section that drains at once, and batches posted
 * and awaited as a client would.
 */
final class DrainingQueue {

  private DrainingQueue() {}

  /**
   * A {@code queue:} section, for the end of a config: the harness's throw-away folder ({@code
   * ${QUEUE}}), the tests' secret, 8 workers polling every 20 ms, a failed try retried 20 ms later,
   * no pacing.
   */
  static String section() {
    return """
        queue:
          folder: ${QUEUE}
          secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
          workers: 8
          poll: 20ms
          retry-delay: 20ms
          pacing: { enabled: false }
        """;
  }

  /**
   * Posts a batch of {@code count} requests ({@code custom_id} {@code idPrefix}0, {@code idPrefix}1
   * …, params {@code params(i)}) with {@code headers}; asserts it was accepted and returns its id.
   */
  static String postBatch(Harness harness, int count, String idPrefix, IntFunction<String> params,
      Map<String, String> headers) throws Exception {
    StringBuilder requests = new StringBuilder();
    for (int i = 0; i < count; i++) {
      requests.append(i == 0 ? "" : ",").append("{\"custom_id\":\"").append(idPrefix).append(i)
          .append("\",\"params\":").append(params.apply(i)).append('}');
    }
    HttpResponse<String> batch = harness.post("/v1/messages/batches", "{\"requests\":[" + requests + "]}", headers);
    assertThat(batch.statusCode()).as(batch.body()).isEqualTo(200);
    return Json.tryParse(batch.body()).get("id").asText();
  }

  /** Batch {@code id} as tenant {@code sk-a} sees it once it ended, or after 30 s (polled every 50 ms). */
  static JsonNode awaitEnded(Harness harness, String id) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    JsonNode view;
    do {
      Thread.sleep(50); // the workers run on real time: polling as a client would
      view = Json.tryParse(harness.getWith("/v1/messages/batches/" + id, "sk-a").body());
    } while (!"ended".equals(view.get("processing_status").asText()) && System.nanoTime() < until);
    return view;
  }
}
