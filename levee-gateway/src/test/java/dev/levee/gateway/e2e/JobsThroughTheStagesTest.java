package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.chain.Target;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Queued work runs through the very same stages as an interactive request (issue 12, phase 2):
 * a target cooling after a rate limit is skipped, as execute does for a client. (A feature at T1
 * does not reduce queued work: {@link QueuedWorkNotReducedAtT1RegressionTest}.)
 */
class JobsThroughTheStagesTest {

  private static final Map<String, String> KEY = Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01",
      "content-type", "application/json");

  @AutoClose
  private Harness harness;

  private void start() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), """
        policy:
          retry: { max-retries: 0 }
        models:
          smart: { chain: [emu/claude-big, emu/claude-small] }
        features:
          nightly: { fail-mode: open }
        queue:
          folder: ${QUEUE}
          secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
          poll: 50ms
          retry-delay: 50ms
        """);
  }

  private String batch(String prompt, Map<String, String> headers) throws Exception {
    String body = "{\"requests\":[{\"custom_id\":\"one\",\"params\":{\"model\":\"smart\",\"max_tokens\":4096,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}}]}";
    HttpResponse<String> created = harness.post("/v1/messages/batches", body, headers);
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    return Json.tryParse(created.body()).get("id").asText();
  }

  private JsonNode result(String batch) throws Exception {
    return Json.tryParse(BatchResults.await(harness, batch).strip());
  }

  @Test
  void aJobSkipsATargetCoolingAfterARateLimit() throws Exception {
    start();
    harness.gateway.tiers().cooldowns().coolFor(new Target("emu", "claude-big"), Duration.ofMinutes(5));

    JsonNode line = result(batch("while big cools", KEY));

    assertThat(line.at("/result/type").asText()).isEqualTo("succeeded");
    assertThat(harness.emulator.log()).extracting(LogEntry::model).containsExactly("claude-small");
    assertThat(Json.tryParse(harness.emulator.log().getFirst().body()).get("max_tokens").asInt())
        .as("at T0 nothing is capped").isEqualTo(4096);
  }
}
