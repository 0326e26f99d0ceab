package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.tier.Tier;
import dev.levee.emulator.EmulatorOptions;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Newcomer trial, bugs 2 and 3, through a gateway and the emulator: streams to alias {@code sick}
 * ({@code emu-529}) took feature {@code default} to T2, and a Message Batch for the healthy alias
 * {@code good} then stayed {@code in_progress} — its job queued, {@code attempts=0}, no {@code
 * last_error} — until {@code sick}'s traffic stopped. Now the batch ends while {@code sick} is
 * still at T2, and {@code sick}'s own queued request waits, saying why.
 */
class SickAliasDoesNotHoldAHealthyBatchRegressionTest {

  private static final Map<String, String> CLIENT = Map.of("x-api-key", "sk-ant-test",
      "anthropic-version", "2023-06-01", "content-type", "application/json");

  @AutoClose
  private Harness harness;

  @Test
  void aBatchForAHealthyAliasEndsWhileASickAliasHoldsTheFeatureAtT2() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), Harness.BASE_POLICY + """
        models:
          good: { chain: [emu/claude-sonnet-4-6] }
          sick: { chain: [emu/emu-529] }
        features:
          default: { on-outage: queue }
        tiers: { evaluate-every: 1h }   # the test evaluates the tiers itself
        queue:
          folder: ${QUEUE}
          secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=   # the client's key is kept sealed
          poll: 50ms
          retry-delay: 50ms
        """);
    String stream = "{\"model\":\"sick\",\"max_tokens\":10,\"stream\":true,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"s%d\"}]}";
    for (int i = 0; i < 25; i++) {
      harness.post("/v1/messages", stream.formatted(i), CLIENT);
    }
    harness.gateway.tiers().evaluateAll();
    assertThat(harness.gateway.tiers().currentTier("default", "sick")).isEqualTo(Tier.T2);
    assertThat(harness.gateway.tiers().tier("default")).isEqualTo(Tier.T2);

    HttpResponse<String> sickQueued = harness.post("/v1/messages",
        "{\"model\":\"sick\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"later\"}]}", CLIENT);
    String sickJob = sickQueued.headers().firstValue("x-levee-job").orElseThrow();
    HttpResponse<String> created = harness.post("/v1/messages/batches", "{\"requests\":[{\"custom_id\":\"g1\","
        + "\"params\":{\"model\":\"good\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}]}",
        CLIENT);
    assertThat(created.statusCode()).isEqualTo(200);
    String batch = Json.tryParse(created.body()).get("id").asText();

    JsonNode ended = awaitBatchEnded(batch);

    assertThat(ended.get("processing_status").asText()).isEqualTo("ended");
    assertThat(ended.at("/request_counts/succeeded").asInt()).isEqualTo(1);
    assertThat(harness.gateway.tiers().currentTier("default", "sick")).as("sick still at T2").isEqualTo(Tier.T2);
    JsonNode held = Json.tryParse(harness.getWith("/v1/levee/jobs/" + sickJob, "sk-ant-test").body());
    assertThat(held.get("state").asText()).as("sick's own work still waits").isEqualTo("queued");
    assertThat(held.get("waiting_reason").asText()).startsWith("held: ").contains("sick");
  }

  private JsonNode awaitBatchEnded(String batch) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    JsonNode view;
    do {
      Thread.sleep(50); // polling a real server, as a client would
      view = Json.tryParse(harness.getWith("/v1/messages/batches/" + batch, "sk-ant-test").body());
    } while (!"ended".equals(view.path("processing_status").asText()) && System.nanoTime() < until);
    return view;
  }
}
