package dev.levee.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The semantic cache on the real in-process model (all-MiniLM-L6-v2, quantized), loaded from the
 * Maven artifact: a paraphrase hits, a different question misses.
 */
class MiniLmSemanticCacheTest {

  private static final String STORED = "How do I reset my password?";
  private static final String PARAPHRASE = "How can I reset my password?";
  private static final String DIFFERENT = "How do I delete my account?";
  private static final Map<String, List<String>> HEADERS = Map.of("x-api-key", List.of("key-a"));

  private static MiniLmEmbedder embedder;

  @BeforeAll
  static void loadTheModel() {
    embedder = MiniLmEmbedder.instance();
  }

  private static SemanticQuery query(String question) {
    return SemanticQuery.of(Json.tryParse("{\"model\":\"smart\",\"max_tokens\":200,\"messages\":[{\"role\":\"user\","
        + "\"content\":\"" + question + "\"}]}"), "smart", HEADERS).orElseThrow();
  }

  @Test
  void theModelRanksAParaphraseAboveTheThresholdAndADifferentQuestionBelowIt() {
    float[] stored = embedder.embed(STORED);
    double paraphrase = TextEmbedder.cosine(stored, embedder.embed(PARAPHRASE));
    double different = TextEmbedder.cosine(stored, embedder.embed(DIFFERENT));
    double threshold = SemanticCache.Config.DEFAULT.threshold();

    assertThat(embedder.embed(STORED)).hasSize(384);
    assertThat(paraphrase).isGreaterThan(threshold).isLessThan(1.0);
    assertThat(different).isLessThan(threshold);
  }

  @Test
  void aParaphraseHitsAndADifferentQuestionMisses() {
    SemanticCache cache = new SemanticCache(embedder, SemanticCache.Config.DEFAULT);
    CacheKey storedKey = CacheKey.of(Json.tryParse("{\"model\":\"smart\",\"max_tokens\":200,\"messages\":"
        + "[{\"role\":\"user\",\"content\":\"" + STORED + "\"}]}"), "smart", HEADERS);
    cache.put(query(STORED), storedKey);

    assertThat(cache.lookup(query(PARAPHRASE))).hasValueSatisfying(match -> {
      assertThat(match.key()).isEqualTo(storedKey);
      assertThat(match.text()).isEqualTo(STORED);
    });
    assertThat(cache.lookup(query(DIFFERENT))).isEmpty();
  }

  @Test
  void theModelRunsOfflineWithDjlTelemetryOff() {
    embedder.embed("load");

    assertThat(System.getProperty("ai.djl.offline")).isEqualTo("true");
    assertThat(System.getProperty("OPT_OUT_TRACKING")).isEqualTo("true");
  }
}
