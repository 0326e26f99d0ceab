package dev.levee.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Partitioning, thresholds and bounds, with a fake embedder whose vectors are chosen by hand. */
class SemanticCacheTest {

  private static final Map<String, List<String>> TENANT_A = Map.of("x-api-key", List.of("key-a"));
  private static final Map<String, List<String>> TENANT_B = Map.of("x-api-key", List.of("key-b"));

  /** Texts map to 2-d directions; cosine of angles: 0° = 1, 10° ≈ 0.985, 30° ≈ 0.866. */
  private final Map<String, float[]> vectors = new HashMap<>();
  private final TextEmbedder fake = text -> vectors.computeIfAbsent(text, t -> {
    throw new AssertionError("no vector for " + t);
  });

  private void direction(String text, double degrees) {
    double radians = Math.toRadians(degrees);
    vectors.put(text, new float[] {(float) Math.cos(radians), (float) Math.sin(radians)});
  }

  private static JsonNode body(String system, String question) {
    return Json.tryParse("{\"model\":\"smart\",\"max_tokens\":100,\"system\":\"" + system + "\","
        + "\"messages\":[{\"role\":\"user\",\"content\":\"" + question + "\"}]}");
  }

  private static SemanticQuery query(String question, Map<String, List<String>> headers) {
    return SemanticQuery.of(body("Be brief.", question), "smart", headers).orElseThrow();
  }

  private static CacheKey keyOf(String question, Map<String, List<String>> headers) {
    return CacheKey.of(body("Be brief.", question), "smart", headers);
  }

  private SemanticCache cache(SemanticCache.Config config) {
    return new SemanticCache(fake, config);
  }

  @Test
  void theMostSimilarEntryAboveTheThresholdWins() {
    direction("stored far", 30);
    direction("stored near", 8);
    direction("stored nearer", 2);
    direction("asked", 0);
    SemanticCache cache = cache(SemanticCache.Config.DEFAULT);
    for (String text : List.of("stored far", "stored near", "stored nearer")) {
      cache.put(query(text, TENANT_A), keyOf(text, TENANT_A));
    }

    Optional<SemanticCache.Match> match = cache.lookup(query("asked", TENANT_A));

    assertThat(match).hasValueSatisfying(m -> {
      assertThat(m.key()).isEqualTo(keyOf("stored nearer", TENANT_A));
      assertThat(m.text()).isEqualTo("stored nearer");
      assertThat(m.similarity()).isGreaterThan(0.99);
    });
  }

  @Test
  void nothingBelowTheThresholdMatches() {
    direction("stored", 20); // cos 20° ≈ 0.94 < 0.95
    direction("asked", 0);
    SemanticCache cache = cache(SemanticCache.Config.DEFAULT);
    cache.put(query("stored", TENANT_A), keyOf("stored", TENANT_A));

    assertThat(cache.lookup(query("asked", TENANT_A))).isEmpty();
    assertThat(cache(new SemanticCache.Config(0.9, 10, 100))).satisfies(lenient -> {
      lenient.put(query("stored", TENANT_A), keyOf("stored", TENANT_A));
      assertThat(lenient.lookup(query("asked", TENANT_A))).isPresent();
    });
  }

  @Test
  void tenantsModelsAndContextsNeverMeet() {
    direction("same", 0);
    SemanticCache cache = cache(SemanticCache.Config.DEFAULT);
    cache.put(query("same", TENANT_A), keyOf("same", TENANT_A));

    SemanticQuery otherTenant = query("same", TENANT_B);
    SemanticQuery otherModel = SemanticQuery.of(body("Be brief.", "same"), "fast", TENANT_A).orElseThrow();
    SemanticQuery otherSystem = SemanticQuery.of(body("Answer in French.", "same"), "smart", TENANT_A).orElseThrow();

    assertThat(cache.lookup(query("same", TENANT_A))).isPresent();
    assertThat(cache.lookup(otherTenant)).isEmpty();
    assertThat(cache.lookup(otherModel)).isEmpty();
    assertThat(cache.lookup(otherSystem)).isEmpty();
  }

  @Test
  void entriesTheCallerCannotUseAreSkipped() {
    direction("best but gone", 1);
    direction("second best", 5);
    direction("asked", 0);
    SemanticCache cache = cache(SemanticCache.Config.DEFAULT);
    CacheKey gone = keyOf("best but gone", TENANT_A);
    cache.put(query("best but gone", TENANT_A), gone);
    cache.put(query("second best", TENANT_A), keyOf("second best", TENANT_A));

    assertThat(cache.lookup(query("asked", TENANT_A), key -> !key.equals(gone)))
        .map(SemanticCache.Match::text).hasValue("second best");
  }

  @Test
  void aPartitionKeepsItsNewestEntries() {
    SemanticCache cache = cache(new SemanticCache.Config(0.95, 3, 100));
    for (int i = 0; i < 5; i++) {
      direction("q" + i, i * 40);
      cache.put(query("q" + i, TENANT_A), keyOf("q" + i, TENANT_A));
    }

    assertThat(cache.size()).isEqualTo(3);
    assertThat(cache.lookup(query("q0", TENANT_A))).isEmpty();
    assertThat(cache.lookup(query("q4", TENANT_A))).isPresent();
  }

  @Test
  void theSameRequestAgainRefreshesItsEntry() {
    direction("q", 0);
    SemanticCache cache = cache(SemanticCache.Config.DEFAULT);

    cache.put(query("q", TENANT_A), keyOf("q", TENANT_A));
    cache.put(query("q", TENANT_A), keyOf("q", TENANT_A));

    assertThat(cache.size()).isEqualTo(1);
  }

  @Test
  void allPartitionsTogetherStayWithinMaxEntries() {
    SemanticCache cache = cache(new SemanticCache.Config(0.95, 100, 10));
    for (int tenant = 0; tenant < 6; tenant++) {
      Map<String, List<String>> headers = Map.of("x-levee-tenant", List.of("t" + tenant));
      for (int i = 0; i < 4; i++) {
        direction("q" + i, i * 40);
        cache.put(query("q" + i, headers), keyOf("q" + i, headers));
      }
    }

    assertThat(cache.size()).isBetween(1L, 10L);
  }

  @Test
  void forgettingATenantLeavesTheOthers() {
    direction("q", 0);
    SemanticCache cache = cache(SemanticCache.Config.DEFAULT);
    cache.put(query("q", TENANT_A), keyOf("q", TENANT_A));
    cache.put(query("q", TENANT_B), keyOf("q", TENANT_B));

    cache.invalidateTenant(query("q", TENANT_A).tenant());

    assertThat(cache.lookup(query("q", TENANT_A))).isEmpty();
    assertThat(cache.lookup(query("q", TENANT_B))).isPresent();
  }

  @ParameterizedTest(name = "[{index}] {1}")
  @CsvSource(delimiter = '|', textBlock = """
      [{"role":"user","content":"How tall is a levee?"}]                                                       | a string turn                  | How tall is a levee?
      [{"role":"user","content":[{"type":"text","text":"How tall"},{"type":"text","text":"is a levee?"}]}]     | text blocks, joined            | 'How tall\nis a levee?'
      [{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"}]                                 | last turn is the assistant's   |
      [{"role":"user","content":[{"type":"image","source":{"type":"url","url":"u"}},{"type":"text","text":"What is this?"}]}] | an image in the turn |
      [{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"42"}]}]                   | a tool result                  |
      [{"role":"user","content":"   "}]                                                                       | blank text                     |
      []                                                                                                    | no messages                    |
      """)
  void onlyAPlainUserQuestionQualifies(String messages, String story, String text) {
    JsonNode body = Json.tryParse("{\"model\":\"m\",\"messages\":" + messages + "}");

    Optional<SemanticQuery> query = SemanticQuery.of(body, "m", TENANT_A);

    assertThat(query.map(SemanticQuery::text)).isEqualTo(Optional.ofNullable(text == null ? null : text.replace("\\n", "\n")));
  }

  @Test
  void aVeryLongTurnIsNotComparedByMeaning() {
    String longText = "x".repeat(SemanticQuery.MAX_TEXT_CHARS + 1);

    assertThat(SemanticQuery.of(body("s", longText), "m", TENANT_A)).isEmpty();
    assertThat(SemanticQuery.of(body("s", longText.substring(1)), "m", TENANT_A)).isPresent();
  }

  @Test
  void theContextIgnoresTheLastQuestionAndStreamButNotTheHistory() {
    JsonNode first = body("Be brief.", "How tall is a levee?");
    JsonNode reworded = body("Be brief.", "What height is a levee?");
    JsonNode streamed = Json.tryParse(Json.string(reworded).replace("\"max_tokens\"", "\"stream\":true,\"max_tokens\""));
    JsonNode otherHistory = Json.tryParse("{\"model\":\"smart\",\"max_tokens\":100,\"system\":\"Be brief.\",\"messages\":["
        + "{\"role\":\"user\",\"content\":\"Hi\"},{\"role\":\"assistant\",\"content\":\"Hello\"},"
        + "{\"role\":\"user\",\"content\":\"How tall is a levee?\"}]}");

    String context = SemanticQuery.of(first, "smart", TENANT_A).orElseThrow().context();

    assertThat(SemanticQuery.of(reworded, "smart", TENANT_A).orElseThrow().context()).isEqualTo(context);
    assertThat(SemanticQuery.of(streamed, "smart", TENANT_A).orElseThrow().context()).isEqualTo(context);
    assertThat(SemanticQuery.of(otherHistory, "smart", TENANT_A).orElseThrow().context()).isNotEqualTo(context);
  }

  /** Regression: one cache served every feature with the highest threshold any feature set. */
  @Test
  void aCallerMayAskForItsOwnThreshold() {
    direction("stored", 10); // cosine ≈ 0.985 to "asked"
    direction("asked", 0);
    SemanticCache cache = cache(SemanticCache.Config.DEFAULT);
    cache.put(query("stored", TENANT_A), keyOf("stored", TENANT_A));

    assertThat(cache.lookup(query("asked", TENANT_A), 0.99, key -> true)).isEmpty();
    assertThat(cache.lookup(query("asked", TENANT_A), 0.98, key -> true)).isPresent();
  }
}
