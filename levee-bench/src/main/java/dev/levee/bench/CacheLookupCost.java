package dev.levee.bench;

import dev.levee.anthropic.time.SystemClock;
import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.message.MessagesRequest;
import dev.levee.gateway.cache.CacheKey;
import dev.levee.gateway.cache.MiniLmEmbedder;
import dev.levee.gateway.cache.ResponseCache;
import dev.levee.gateway.cache.SemanticCache;
import dev.levee.gateway.cache.SemanticQuery;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a cache lookup costs at T2, measured in one run: the exact lookup (key over the request,
 * then a Caffeine read) against the semantic lookup (embedding the last user turn with the
 * in-process MiniLM model, then a scan of 1,000 entries of the same partition), and their ratio.
 * A benchmark, not a test: it reports wall-clock numbers.
 *
 * <p>Run: {@code java -cp levee-bench/target/levee-bench.jar dev.levee.bench.CacheLookupCost}.
 */
public final class CacheLookupCost {

  private static final int ENTRIES = 1_000;
  private static final int ROUNDS = 300;

  private CacheLookupCost() {}

  public static void main(String[] args) {
    Map<String, List<String>> headers = Map.of("x-api-key", List.of("bench-key"));
    ResponseCache cache = new ResponseCache(ResponseCache.Config.DEFAULT, SystemClock.ticker());
    SemanticCache semantic = new SemanticCache(MiniLmEmbedder.instance(), SemanticCache.Config.DEFAULT);
    byte[] answer = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}"
        .getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < ENTRIES; i++) {
      MessagesRequest request = request("Question number " + i + ": how do levees hold back a river in flood?");
      CacheKey key = CacheKey.of(request, headers);
      cache.put(key, answer, "m", java.time.Duration.ofHours(1));
      semantic.put(query(request, headers), key);
    }
    MessagesRequest probe = request("Question number 17: how does a levee hold back a flooding river?");
    double[] exact = new double[ROUNDS];
    double[] bySense = new double[ROUNDS];
    for (int round = -50; round < ROUNDS; round++) { // the first 50 warm up the JIT and the model
      long start = System.nanoTime();
      cache.lookup(CacheKey.of(probe, headers));
      long middle = System.nanoTime();
      semantic.lookup(query(probe, headers));
      long end = System.nanoTime();
      if (round >= 0) {
        exact[round] = (middle - start) / 1e3;
        bySense[round] = (end - middle) / 1e3;
      }
    }
    Arrays.sort(exact);
    Arrays.sort(bySense);
    double exactMedian = exact[ROUNDS / 2];
    double semanticMedian = bySense[ROUNDS / 2];
    System.out.printf(Locale.ROOT, "cache lookup cost, median of %d rounds, %d entries (java %s, %d cpus)%n",
        ROUNDS, ENTRIES, Runtime.version(), Runtime.getRuntime().availableProcessors());
    System.out.printf(Locale.ROOT, "  exact key + Caffeine read:        %9.1f µs (p90 %9.1f µs)%n", exactMedian, exact[ROUNDS * 9 / 10]);
    System.out.printf(Locale.ROOT, "  semantic (embed + scan %d):    %9.1f µs (p90 %9.1f µs)%n", ENTRIES, semanticMedian,
        bySense[ROUNDS * 9 / 10]);
    System.out.printf(Locale.ROOT, "  semantic / exact:                  %9.1fx%n", semanticMedian / exactMedian);
  }

  private static MessagesRequest request(String question) {
    try {
      return MessagesRequest.parse(("{\"model\":\"m\",\"max_tokens\":256,\"messages\":[{\"role\":\"user\",\"content\":"
          + Json.string(question) + "}]}").getBytes(StandardCharsets.UTF_8));
    } catch (MessagesRequest.InvalidRequestException e) {
      throw new IllegalStateException(e);
    }
  }

  private static SemanticQuery query(MessagesRequest request, Map<String, List<String>> headers) {
    JsonNode body = Json.tryParse(request.body());
    return SemanticQuery.of(body, request.model(), headers).orElseThrow();
  }
}
