package dev.levee.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import dev.levee.core.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ResponseCacheTest {

  private final ManualClock clock = new ManualClock();
  private final ResponseCache cache = new ResponseCache(ResponseCache.Config.DEFAULT, clock);
  private final Duration hot = Duration.ofMinutes(10);
  private final Duration cold = Duration.ofMinutes(60);

  static byte[] message(String text) {
    return ("{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":"
        + "[{\"type\":\"text\",\"text\":\"" + text + "\"}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,"
        + "\"usage\":{\"input_tokens\":3,\"output_tokens\":5}}").getBytes(StandardCharsets.UTF_8);
  }

  static CacheKey key(String question, String apiKey) {
    return CacheKey.of(Json.tryParse("{\"model\":\"smart\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\""
        + question + "\"}]}"), "smart", Map.of("x-api-key", List.of(apiKey)));
  }

  @Test
  void anEntryIsFreshForItsTtlThenStaleUntilMaxStalenessThenGone() {
    CacheKey key = key("q", "k1");
    cache.put(key, message("hello"), "claude-x", hot);

    clock.advance(hot.minusSeconds(1));
    assertThat(cache.lookup(key)).isInstanceOfSatisfying(ResponseCache.Fresh.class, fresh -> {
      assertThat(fresh.answer().messageText()).contains("hello");
      assertThat(fresh.answer().model()).isEqualTo("claude-x");
      assertThat(fresh.age()).isEqualTo(hot.minusSeconds(1));
    });

    clock.advance(Duration.ofSeconds(1));
    assertThat(cache.lookup(key)).isInstanceOf(ResponseCache.Stale.class);

    clock.advance(cache.config().maxStaleness().minusSeconds(1));
    assertThat(cache.lookup(key)).isInstanceOf(ResponseCache.Stale.class);

    clock.advance(Duration.ofSeconds(1));
    assertThat(cache.lookup(key)).isInstanceOf(ResponseCache.Miss.class);
    assertThat(cache.size()).isZero();
  }

  @Test
  void theCallerChoosesHotOrColdTtl() {
    CacheKey generatedAtT0 = key("a", "k1");
    CacheKey regeneratedAtT2 = key("b", "k1");
    cache.put(generatedAtT0, message("a"), "claude-x", hot);
    cache.put(regeneratedAtT2, message("b"), "claude-x", cold);

    clock.advance(Duration.ofMinutes(30));

    assertThat(cache.lookup(generatedAtT0)).isInstanceOf(ResponseCache.Stale.class);
    assertThat(cache.lookup(regeneratedAtT2)).isInstanceOf(ResponseCache.Fresh.class);
  }

  @Test
  void aNewPutReplacesTheEntryAndRestartsItsClock() {
    CacheKey key = key("q", "k1");
    cache.put(key, message("old"), "claude-x", hot);
    clock.advance(hot.plusMinutes(1));

    cache.put(key, message("new"), "claude-y", hot);

    assertThat(cache.lookup(key)).isInstanceOfSatisfying(ResponseCache.Fresh.class,
        fresh -> assertThat(fresh.answer().messageText()).contains("new"));
  }

  @Test
  void aPutWithinASecondOfTheLastWithTheSameTtlKeepsTheEntry() {
    CacheKey key = key("q", "k1");
    cache.put(key, message("first"), "claude-x", hot);
    clock.advance(ResponseCache.REWRITE_AFTER.minusMillis(1));

    assertThat(cache.put(key, message("second"), "claude-y", hot)).isTrue();
    assertThat(cache.lookup(key)).isInstanceOfSatisfying(ResponseCache.Fresh.class,
        fresh -> assertThat(fresh.answer().messageText()).contains("first"));
    assertThat(cache.stats().puts()).isEqualTo(1);

    cache.put(key, message("cold"), "claude-y", cold); // another TTL: a T2 regeneration replaces it
    assertThat(cache.lookup(key)).isInstanceOfSatisfying(ResponseCache.Fresh.class,
        fresh -> assertThat(fresh.answer().messageText()).contains("cold"));

    clock.advance(ResponseCache.REWRITE_AFTER);
    cache.put(key, message("later"), "claude-y", cold);
    assertThat(cache.lookup(key)).isInstanceOfSatisfying(ResponseCache.Fresh.class,
        fresh -> assertThat(fresh.answer().messageText()).contains("later"));
  }

  @Test
  void aStreamsAnswerIsAssembledOnlyWhenItWillBeStored() {
    CacheKey key = key("q", "k1");
    AtomicInteger assembled = new AtomicInteger();
    Supplier<byte[]> first = () -> {
      assembled.incrementAndGet();
      return message("first");
    };
    assertThat(cache.put(key, first, "claude-x", hot)).isTrue();
    assertThat(assembled).hasValue(1);

    clock.advance(ResponseCache.REWRITE_AFTER.minusMillis(1));
    assertThat(cache.put(key, () -> {
      assembled.incrementAndGet();
      return message("second");
    }, "claude-x", hot)).isTrue(); // the entry stays: nothing to assemble
    assertThat(assembled).hasValue(1);
    assertThat(cache.lookup(key)).isInstanceOfSatisfying(ResponseCache.Fresh.class,
        fresh -> assertThat(fresh.answer().messageText()).contains("first"));

    clock.advance(ResponseCache.REWRITE_AFTER);
    assertThat(cache.put(key, () -> message("later"), "claude-x", hot)).isTrue();
    assertThat(cache.lookup(key)).isInstanceOfSatisfying(ResponseCache.Fresh.class,
        fresh -> assertThat(fresh.answer().messageText()).contains("later"));
    assertThat(cache.stats().puts()).isEqualTo(2);
  }

  @Test
  void aStreamsAnswerIsCheckedAsAJsonAnswerIs() {
    CacheKey key = key("q", "k1");
    String noStop = new String(message("x"), StandardCharsets.UTF_8).replace("\"end_turn\"", "null");

    assertThat(cache.put(key, () -> null, "m", hot)).isFalse(); // none assembled: not stored, not refused
    assertThat(cache.put(key, () -> noStop.getBytes(StandardCharsets.UTF_8), "m", hot)).isFalse();
    assertThat(cache.lookup(key)).isInstanceOf(ResponseCache.Miss.class);
    assertThat(cache.stats().refused()).isEqualTo(1);
  }

  @Test
  void onlyFinishedAssistantMessagesAreStored() {
    CacheKey key = key("q", "k1");
    String noStop = new String(message("x"), StandardCharsets.UTF_8).replace("\"end_turn\"", "null");
    String error = "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}";

    assertThat(cache.put(key, noStop.getBytes(StandardCharsets.UTF_8), "m", hot)).isFalse();
    assertThat(cache.put(key, error.getBytes(StandardCharsets.UTF_8), "m", hot)).isFalse();
    assertThat(cache.put(key, "{\"type\":\"message\"".getBytes(StandardCharsets.UTF_8), "m", hot)).isFalse();
    assertThat(cache.lookup(key)).isInstanceOf(ResponseCache.Miss.class);
    assertThat(cache.stats().refused()).isEqualTo(3);
  }

  @Test
  void theCacheIsBoundedByBytes() {
    long maxBytes = 16 * 1024;
    ResponseCache small = new ResponseCache(new ResponseCache.Config(maxBytes, Duration.ofHours(24)), clock);
    String text = "x".repeat(3000);

    for (int i = 0; i < 20; i++) {
      small.put(key("q" + i, "k1"), message(text), "claude-x", hot);
    }

    assertThat(small.weightedBytes()).isLessThanOrEqualTo(maxBytes).isGreaterThan(maxBytes / 2);
    assertThat(small.size()).isBetween(1L, 5L);
  }

  @Test
  void anAnswerLargerThanTheWholeCacheIsRefused() {
    ResponseCache tiny = new ResponseCache(new ResponseCache.Config(1024, Duration.ZERO), clock);

    assertThat(tiny.put(key("q", "k1"), message("y".repeat(2000)), "claude-x", hot)).isFalse();
    assertThat(tiny.size()).isZero();
  }

  @Test
  void tenantsHaveTheirOwnEntries() {
    CacheKey tenantA = key("same question", "key-a");
    CacheKey tenantB = key("same question", "key-b");
    cache.put(tenantA, message("for A"), "claude-x", hot);

    assertThat(cache.lookup(tenantB)).isInstanceOf(ResponseCache.Miss.class);

    cache.put(tenantB, message("for B"), "claude-x", hot);
    cache.invalidateTenant(tenantA.tenant());

    assertThat(cache.lookup(tenantA)).isInstanceOf(ResponseCache.Miss.class);
    assertThat(cache.lookup(tenantB)).isInstanceOfSatisfying(ResponseCache.Fresh.class,
        fresh -> assertThat(fresh.answer().messageText()).contains("for B"));
  }

  @Test
  void storedBytesAreACopy() {
    CacheKey key = key("q", "k1");
    byte[] bytes = message("original");
    cache.put(key, bytes, "claude-x", hot);

    java.util.Arrays.fill(bytes, (byte) 'z');

    assertThat(((ResponseCache.Fresh) cache.lookup(key)).answer().messageText()).contains("original");
  }

  @Test
  void statsCountWhatLookupsFound() {
    CacheKey key = key("q", "k1");
    cache.lookup(key);
    cache.put(key, message("a"), "claude-x", hot);
    cache.lookup(key);
    clock.advance(hot);
    cache.lookup(key);

    assertThat(cache.stats()).isEqualTo(new ResponseCache.Stats(1, 1, 1, 1, 0));
  }

  /** Regression: checking semantic candidates counted as lookups, so the metrics overcounted. */
  @Test
  void peekingIsNotCountedAsALookup() {
    CacheKey key = new CacheKey("t", "m", "d1");
    cache.put(key, message("peek"), "m", hot);

    assertThat(cache.peek(key)).isInstanceOf(ResponseCache.Fresh.class);
    assertThat(cache.peek(new CacheKey("t", "m", "d2"))).isInstanceOf(ResponseCache.Miss.class);
    assertThat(cache.stats()).isEqualTo(new ResponseCache.Stats(0, 0, 0, 1, 0));
  }
}
