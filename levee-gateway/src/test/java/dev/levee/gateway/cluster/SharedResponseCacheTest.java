package dev.levee.gateway.cluster;

import static dev.levee.gateway.cluster.RedisFixture.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.gateway.cache.CacheKey;
import dev.levee.gateway.cache.ResponseCache;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** The answer cache shared by two replicas, partitioned by tenant. */
class SharedResponseCacheTest {

  private static final byte[] ANSWER = ("{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\","
      + "\"content\":[{\"type\":\"text\",\"text\":\"Levées hold — ok\"}],\"stop_reason\":\"end_turn\","
      + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}").getBytes(StandardCharsets.UTF_8);

  @AutoClose
  private final RedisFixture redis = new RedisFixture();

  private static CacheKey key(String apiKey) {
    return CacheKey.of(dev.levee.anthropic.Json.tryParse("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":5}"),
        "smart", Map.of("x-api-key", List.of(apiKey)));
  }

  @Test
  void anAnswerStoredByOneReplicaIsServedByAnotherToTheSameTenantOnly() throws Exception {
    SharedResponseCache a = redis.replica(SystemClock.ticker()).responseCache(Duration.ofHours(1));
    SharedResponseCache b = redis.replica(SystemClock.ticker()).responseCache(Duration.ofHours(1));

    assertThat(a.put(key("sk-ant-alice"), ANSWER, "claude-opus-4-6", Duration.ofMinutes(5))).isTrue();

    assertThat(b.lookup(key("sk-ant-alice"))).isInstanceOfSatisfying(ResponseCache.Fresh.class, fresh -> {
      assertThat(fresh.answer().messageJson()).isEqualTo(ANSWER);
      assertThat(fresh.answer().model()).isEqualTo("claude-opus-4-6");
    });
    assertThat(b.lookup(key("sk-ant-bob"))).as("another tenant").isInstanceOf(ResponseCache.Miss.class);
  }

  @Test
  void afterItsTtlAnEntryIsStaleThenGone() throws Exception {
    SharedResponseCache a = redis.replica(SystemClock.ticker()).responseCache(Duration.ofMillis(300));
    a.put(key("sk-ant-alice"), ANSWER, "m", Duration.ofMillis(200));

    assertThat(eventually(Duration.ofSeconds(5), () -> a.lookup(key("sk-ant-alice")) instanceof ResponseCache.Stale))
        .isTrue();
    assertThat(eventually(Duration.ofSeconds(5), () -> a.lookup(key("sk-ant-alice")) instanceof ResponseCache.Miss))
        .as("Redis expired it: memory is bounded by TTLs").isTrue();
  }

  @Test
  void onlyFinishedMessagesAreSharedAndATenantCanBeDropped() throws Exception {
    SharedResponseCache a = redis.replica(SystemClock.ticker()).responseCache(Duration.ofHours(1));
    assertThat(a.put(key("sk-ant-alice"), "{\"type\":\"message\",\"content\":[]}".getBytes(StandardCharsets.UTF_8),
        "m", Duration.ofMinutes(1))).as("no stop_reason: not a finished answer").isFalse();
    a.put(key("sk-ant-alice"), ANSWER, "m", Duration.ofMinutes(1));
    a.put(key("sk-ant-bob"), ANSWER, "m", Duration.ofMinutes(1));

    assertThat(a.invalidateTenant(key("sk-ant-alice").tenant())).isTrue();

    assertThat(a.lookup(key("sk-ant-alice"))).isInstanceOf(ResponseCache.Miss.class);
    assertThat(a.lookup(key("sk-ant-bob"))).isInstanceOf(ResponseCache.Fresh.class);
  }
}
