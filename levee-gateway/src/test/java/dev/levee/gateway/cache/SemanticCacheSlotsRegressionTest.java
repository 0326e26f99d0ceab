package dev.levee.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Audit of what clients can grow: the semantic cache bounds its entries over all partitions
 * ({@code maxEntries}), but every partition allocated room for {@code maxEntriesPerPartition}
 * entries (1,000 by default) when made. A partition is a tenant, model and rest of the request,
 * so a client that changes its system prompt with every request makes one partition per request:
 * with the defaults, 20,000 partitions of one entry each held room for 20 million (~240 MB of empty
 * arrays, where the Javadoc promised ~32 MB). Given 10,000 requests each with a system prompt of
 * its own, the slots allocated stay under twice the entries kept.
 */
class SemanticCacheSlotsRegressionTest {

  private static final Map<String, List<String>> TENANT = Map.of("x-api-key", List.of("key-a"));
  private static final SemanticCache.Config CONFIG = new SemanticCache.Config(0.95, 1_000, 2_000);

  @Test
  void partitionsOfOneEntryHoldRoomForAboutOne() {
    SemanticCache cache = new SemanticCache(text -> new float[] {1, 0}, CONFIG);
    for (int i = 0; i < 10_000; i++) {
      var body = Json.tryParse("{\"model\":\"smart\",\"max_tokens\":100,\"system\":\"You are assistant " + i + ".\","
          + "\"messages\":[{\"role\":\"user\",\"content\":\"What is the capital of France?\"}]}");
      cache.put(SemanticQuery.of(body, "smart", TENANT).orElseThrow(), CacheKey.of(body, "smart", TENANT));
    }

    assertThat(cache.size()).as("entries kept").isLessThanOrEqualTo(CONFIG.maxEntries());
    assertThat(cache.slots()).as("slots allocated for %d entries", cache.size())
        .isLessThanOrEqualTo(2 * CONFIG.maxEntries());
  }

  @Test
  void aBusyPartitionStillKeepsItsNewestThousand() {
    SemanticCache cache = new SemanticCache(text -> new float[] {1, 0}, SemanticCache.Config.DEFAULT);
    for (int i = 0; i < 1_500; i++) {
      var body = Json.tryParse("{\"model\":\"smart\",\"max_tokens\":100,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"question " + i + "\"}]}");
      cache.put(SemanticQuery.of(body, "smart", TENANT).orElseThrow(), CacheKey.of(body, "smart", TENANT));
    }

    assertThat(cache.size()).isEqualTo(1_000);
    assertThat(cache.slots()).isEqualTo(1_000);
  }
}
