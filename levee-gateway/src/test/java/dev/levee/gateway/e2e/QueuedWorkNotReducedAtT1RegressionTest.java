package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.tier.Tier;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Queued work waits out trouble for the answer it asked for: a batch request of a feature at T1
 * goes through its alias's whole chain with its own {@code max_tokens} and thinking, as at T0 —
 * never to the tier's reduced target with {@code max_tokens} capped. Before (newcomer trial): with
 * {@code rep: [sonnet, haiku]} and the upstream answering 529, the jobs' own failed tries stepped
 * {@code rep} to T1, and the batch came back a mix of sonnet answers and haiku answers capped at
 * 1024 tokens, with nothing in the results to tell them apart. The alias's own fallback chain still
 * applies (the answering model is in each message's {@code model}).
 */
class QueuedWorkNotReducedAtT1RegressionTest {

  private static final Map<String, String> NIGHTLY = Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01",
      "content-type", "application/json", "x-levee-feature", "nightly");

  @AutoClose
  private Harness harness;

  private void start() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), """
        policy:
          retry: { max-retries: 0 }
        models:
          smart: { chain: [emu/claude-big, emu/claude-small] }
          flaky: { chain: [emu/emu-529, emu/claude-small] }
        features:
          nightly: { fail-mode: open }
        queue:
          folder: ${QUEUE}
          secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
          poll: 50ms
          retry-delay: 50ms
        """);
    harness.gateway.tiers().controller("nightly").force(Tier.T1, Duration.ofMinutes(5));
  }

  /** A batch of {@code n} requests to {@code model}, each asking for 4096 tokens with thinking on. */
  private String batch(String model, int n) throws Exception {
    List<String> requests = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      requests.add("{\"custom_id\":\"r" + i + "\",\"params\":{\"model\":\"" + model + "\",\"max_tokens\":4096,"
          + "\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":2048},"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"summarise night " + i + "\"}]}}");
    }
    HttpResponse<String> created = harness.post("/v1/messages/batches",
        "{\"requests\":[" + String.join(",", requests) + "]}", new HashMap<>(NIGHTLY));
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    return Json.tryParse(created.body()).get("id").asText();
  }

  private List<JsonNode> results(String batch) throws Exception {
    return BatchResults.await(harness, batch).strip().lines().map(Json::tryParse).toList();
  }

  @Test
  void aBatchOfAFeatureAtT1GetsTheModelAndTokensItAskedFor() throws Exception {
    start();

    List<JsonNode> lines = results(batch("smart", 5));

    assertThat(lines).hasSize(5).allSatisfy(line -> {
      assertThat(line.at("/result/type").asText()).isEqualTo("succeeded");
      assertThat(line.at("/result/message/model").asText()).isEqualTo("claude-big");
    });
    List<LogEntry> calls = harness.emulator.log();
    assertThat(calls).extracting(LogEntry::model).containsOnly("claude-big").hasSize(5);
    for (LogEntry call : calls) {
      JsonNode sent = Json.tryParse(call.body());
      assertThat(sent.get("max_tokens").asInt()).as("not capped").isEqualTo(4096);
      assertThat(sent.at("/thinking/type").asText()).as("thinking kept").isEqualTo("enabled");
    }
  }

  @Test
  void theAliassFallbackChainStillAnswersWhenItsFirstTargetFailsButUncapped() throws Exception {
    start();

    List<JsonNode> lines = results(batch("flaky", 3));

    assertThat(lines).hasSize(3).allSatisfy(line -> {
      assertThat(line.at("/result/type").asText()).isEqualTo("succeeded");
      assertThat(line.at("/result/message/model").asText()).as("the chain's fallback says so")
          .isEqualTo("claude-small");
    });
    List<LogEntry> answered = harness.emulator.log().stream().filter(c -> c.model().equals("claude-small")).toList();
    assertThat(answered).hasSize(3);
    assertThat(answered).allSatisfy(call ->
        assertThat(Json.tryParse(call.body()).get("max_tokens").asInt()).as("not capped").isEqualTo(4096));
    assertThat(harness.emulator.log()).extracting(LogEntry::model).as("the chain was tried from its first target")
        .contains("emu-529");
  }
}
