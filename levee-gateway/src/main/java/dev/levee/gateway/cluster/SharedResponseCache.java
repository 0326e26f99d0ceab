package dev.levee.gateway.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.cache.CacheKey;
import dev.levee.gateway.cache.CachedAnswer;
import dev.levee.gateway.cache.ResponseCache;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The answer cache shared by every replica ({@code cache.store: redis}), so T2 and
 * stale-if-error serve what any replica stored. The replica's in-memory {@link ResponseCache}
 * stays in front of it: look there first, ask this on a miss (and copy a hit into the local
 * cache), write both.
 *
 * <ul>
 *   <li>Same answers as {@link ResponseCache#lookup}: fresh within the writer's TTL, stale up to
 *       the max staleness (for stale-if-error only), then gone — Redis expires the entry itself,
 *       so memory is bounded by TTLs (and by Redis's {@code maxmemory}, policy
 *       {@code volatile-ttl}).
 *   <li>Tenants never share: the key is {@code levee:<name>:cache:{<tenant>}:<digest>}, and the
 *       digest covers the tenant too. Entries hold the answer and model only, never an API key.
 *   <li>An entry above {@code maxEntryBytes} (default 1 MiB) is not shared.
 *   <li>Redis away or slow: a lookup is a miss and a write is skipped; nothing waits longer than
 *       the command timeout.
 * </ul>
 *
 * <p>Ages use Redis's clock, so replicas agree on freshness. Thread-safe.
 */
public final class SharedResponseCache implements ResponseCache.Shared {

  /** Default largest answer shared: 1 MiB. */
  public static final int DEFAULT_MAX_ENTRY_BYTES = 1 << 20;

  private static final LuaScript PUT = LuaScript.load("cache-put");
  private static final LuaScript GET = LuaScript.load("cache-get");

  private final RedisLink link;
  private final Ticker ticker;
  private final Duration maxStaleness;
  private final int maxEntryBytes;

  /**
   * @param maxStaleness how long after its TTL an entry stays for stale-if-error (the local
   *     cache's {@code cache.max-staleness})
   * @param maxEntryBytes the largest message shared, in bytes
   */
  SharedResponseCache(RedisLink link, Ticker ticker, Duration maxStaleness, int maxEntryBytes) {
    this.link = link;
    this.ticker = ticker;
    this.maxStaleness = Objects.requireNonNull(maxStaleness, "maxStaleness");
    if (maxEntryBytes <= 0) throw new IllegalArgumentException("max entry bytes must be positive, was " + maxEntryBytes);
    this.maxEntryBytes = maxEntryBytes;
  }

  /** Fresh, stale or miss, as {@link ResponseCache#lookup}; a miss when Redis is away. */
  @Override
  public ResponseCache.Lookup lookup(CacheKey key) {
    if (!link.tryShared()) {
      return new ResponseCache.Miss();
    }
    Optional<List<String>> found = link.eval(GET, ScriptOutputType.MULTI, new String[] {redisKey(key)});
    if (found.isEmpty() || found.get().size() != 4) {
      return new ResponseCache.Miss();
    }
    List<String> entry = found.get();
    long ageMillis = Math.max(0, Long.parseLong(entry.get(3)));
    Duration ttl = Duration.ofMillis(Long.parseLong(entry.get(2)));
    Duration age = Duration.ofMillis(ageMillis);
    CachedAnswer answer = new CachedAnswer(entry.get(0).getBytes(StandardCharsets.UTF_8), entry.get(1),
        ticker.nanos() - age.toNanos(), ttl);
    if (age.compareTo(ttl) < 0) {
      return new ResponseCache.Fresh(answer, age);
    }
    return age.compareTo(ttl.plus(maxStaleness)) < 0 ? new ResponseCache.Stale(answer, age) : new ResponseCache.Miss();
  }

  /**
   * Shares a complete answer under {@code key}, replacing any entry.
   *
   * @param messageJson the upstream's finished {@code message} object, UTF-8 JSON
   * @param ttl how long it stays fresh (positive)
   * @return false when not shared: not a finished message, too large, or Redis away
   */
  @Override
  public boolean put(CacheKey key, byte[] messageJson, String model, Duration ttl) {
    if (!ttl.isPositive() || messageJson.length > maxEntryBytes || !isFinishedMessage(messageJson) || !link.tryShared()) {
      return false;
    }
    return link.<Long>eval(PUT, ScriptOutputType.INTEGER, new String[] {redisKey(key)},
        new String(messageJson, StandardCharsets.UTF_8), model, Long.toString(ttl.toMillis()),
        Long.toString(maxStaleness.toMillis())).isPresent();
  }

  /**
   * Drops every shared entry of {@code tenant} (admin; scans that tenant's keys, not on the request
   * path).
   *
   * @return whether the scan completed (false: Redis went away midway)
   */
  public boolean invalidateTenant(String tenant) {
    ScanArgs match = ScanArgs.Builder.matches(link.key("cache:{" + escapeGlob(tenant) + "}:*")).limit(1000);
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      ScanCursor from = cursor;
      Optional<KeyScanCursor<String>> page = link.call(c -> c.scan(from, match));
      if (page.isEmpty()) {
        return false;
      }
      if (!page.get().getKeys().isEmpty()) {
        String[] keys = page.get().getKeys().toArray(String[]::new);
        link.<Long>call(c -> c.unlink(keys));
      }
      cursor = page.get();
    } while (!cursor.isFinished());
    return true;
  }

  private String redisKey(CacheKey key) {
    return link.key("cache:{" + key.tenant() + "}:" + key.digest());
  }

  private static String escapeGlob(String text) {
    return text.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
  }

  private static boolean isFinishedMessage(byte[] json) {
    JsonNode message = Json.tryParse(json);
    return message != null && message.isObject()
        && "message".equals(message.path("type").textValue())
        && message.path("content").isArray()
        && message.path("stop_reason").isTextual();
  }
}
