package dev.levee.gateway.cache;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.levee.anthropic.Json;
import dev.levee.core.time.Ticker;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The exact-match answer cache, in memory (Caffeine), bounded by bytes.
 *
 * <p>Each entry is fresh for the TTL its writer chose — a feature's hot TTL for answers generated
 * at T0/T1, its cold TTL for T2 regenerations ({@code dev.levee.gateway.config.Feature}) — then
 * <em>stale</em> for up to {@link Config#maxStaleness()} (default 24 h),
 * when only stale-if-error may serve it, then gone. {@link #lookup} says which of the three it
 * found; serving a stale entry is the caller's decision.
 *
 * <p>The bound is the sum of entry weights, about the bytes held ({@link Config#maxBytes()},
 * default 64 MiB): the message bytes plus the key's strings plus a fixed overhead. Caffeine
 * evicts by its W-TinyLFU policy when the bound is reached. Entries hold the answer, the model
 * and the key (whose tenant is a hash): no API key is ever stored.
 *
 * <p>Time comes from the injected {@link Ticker} (tests pass a {@link
 * dev.levee.core.time.ManualClock}); cache maintenance runs on the calling thread, so there is
 * no background thread and tests are deterministic. Thread-safe.
 */
public final class ResponseCache {

  /**
   * Settings; immutable.
   *
   * @param maxBytes the bound on the weights of all entries, bytes (default 64 MiB)
   * @param maxStaleness how long after its TTL an entry stays for stale-if-error (default 24 h)
   */
  public record Config(long maxBytes, Duration maxStaleness) {

    /** 64 MiB, 24 h. */
    public static final Config DEFAULT = new Config(64L << 20, Duration.ofHours(24));

    public Config {
      Objects.requireNonNull(maxStaleness, "maxStaleness");
      if (maxBytes <= 0) throw new IllegalArgumentException("max-bytes must be positive, was " + maxBytes);
      if (maxStaleness.isNegative()) throw new IllegalArgumentException("max staleness must not be negative, was " + maxStaleness);
    }
  }

  /** The answer of {@link #lookup}. */
  public sealed interface Lookup permits Fresh, Stale, Miss {}

  /** A fresh entry: may answer at any tier. */
  public record Fresh(CachedAnswer answer, Duration age) implements Lookup {}

  /** An expired entry within max staleness: for stale-if-error only ({@code x-levee-cache: stale}). */
  public record Stale(CachedAnswer answer, Duration age) implements Lookup {}

  /** Nothing usable. */
  public record Miss() implements Lookup {
    static final Miss INSTANCE = new Miss();
  }

  /** Counts since creation, for metrics and hit rates. */
  public record Stats(long fresh, long stale, long misses, long puts, long refused) {}

  /**
   * A put for a key whose entry, with the same TTL, was stored less than this long ago keeps that
   * entry (as if the two had raced and the first had won): the same question asked many times a
   * second costs one write, not one per answer.
   */
  static final Duration REWRITE_AFTER = Duration.ofSeconds(1);

  /** Per-entry overhead in weight units (bytes): object headers, the record, the map node. */
  static final int ENTRY_OVERHEAD = 256;

  private final Config config;
  private final Ticker ticker;
  private final Cache<CacheKey, CachedAnswer> cache;
  private final LongAdder fresh = new LongAdder();
  private final LongAdder stale = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder puts = new LongAdder();
  private final LongAdder refused = new LongAdder();

  public ResponseCache(Config config, Ticker ticker) {
    this.config = Objects.requireNonNull(config, "config");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    long stalenessNanos = config.maxStaleness().toNanos();
    this.cache = Caffeine.newBuilder()
        .ticker(ticker::nanos)
        .executor(Runnable::run)
        .maximumWeight(config.maxBytes())
        .weigher((CacheKey key, CachedAnswer answer) -> weight(key, answer))
        .expireAfter(new Expiry<CacheKey, CachedAnswer>() {
          @Override
          public long expireAfterCreate(CacheKey key, CachedAnswer answer, long currentTime) {
            return saturatedAdd(answer.ttl().toNanos(), stalenessNanos);
          }

          @Override
          public long expireAfterUpdate(CacheKey key, CachedAnswer answer, long currentTime, long currentDuration) {
            return saturatedAdd(answer.ttl().toNanos(), stalenessNanos);
          }

          @Override
          public long expireAfterRead(CacheKey key, CachedAnswer answer, long currentTime, long currentDuration) {
            return currentDuration;
          }
        })
        .build();
  }

  public Config config() {
    return config;
  }

  /**
   * A cache shared with other processes (gateway replicas, through Redis: {@code cache.store:
   * redis}), asked when this one misses and written behind every put.
   */
  public interface Shared {
    /** Fresh, stale or miss, as {@link #lookup}; a miss when the shared store cannot answer. */
    Lookup lookup(CacheKey key);

    /** Shares a complete answer; false when not shared. */
    boolean put(CacheKey key, byte[] messageJson, String model, Duration ttl);
  }

  private volatile Shared shared; // null: this process's cache only

  /**
   * From now on, a local miss of {@link #lookup} or {@link #lastResort} asks {@code shared} (an
   * answer found there is kept locally too), and every {@link #put} is also written there, in the
   * background. Call once, at start-up.
   */
  public void shareThrough(Shared shared) {
    this.shared = Objects.requireNonNull(shared, "shared");
  }

  /** Looks {@code key} up: fresh, stale (expired within max staleness) or miss; counted in {@link #stats()}. */
  public Lookup lookup(CacheKey key) {
    Lookup found = peekShared(key);
    switch (found) {
      case Fresh f -> fresh.increment();
      case Stale s -> stale.increment();
      case Miss m -> misses.increment();
    }
    return found;
  }

  /**
   * Looks {@code key} up for stale-if-error, when every target failed: an entry still held —
   * fresh, or expired within max staleness — is served as stale ({@code x-levee-cache: stale})
   * and counted as a stale lookup; nothing held counts as a miss.
   */
  public Optional<CachedAnswer> lastResort(CacheKey key) {
    CachedAnswer answer = switch (peekShared(key)) {
      case Fresh f -> f.answer();
      case Stale s -> s.answer();
      case Miss m -> null;
    };
    (answer == null ? misses : stale).increment();
    return Optional.ofNullable(answer);
  }

  /** This cache, then the shared one on a miss (keeping what it finds). */
  private Lookup peekShared(CacheKey key) {
    Lookup found = peek(key);
    Shared other = shared;
    if (!(found instanceof Miss) || other == null) {
      return found;
    }
    Lookup remote = other.lookup(key);
    switch (remote) {
      case Fresh f -> cache.put(key, f.answer());
      case Stale st -> cache.put(key, st.answer());
      case Miss m -> { }
    }
    return remote;
  }

  /** As {@link #lookup}, without counting: for checking candidates (e.g. of a semantic match). */
  public Lookup peek(CacheKey key) {
    CachedAnswer answer = cache.getIfPresent(key);
    long now = ticker.nanos();
    if (answer == null) {
      return Miss.INSTANCE;
    }
    if (answer.isFresh(now)) {
      return new Fresh(answer, answer.age(now));
    }
    if (now - answer.storedAtNanos() < saturatedAdd(answer.ttl().toNanos(), config.maxStaleness().toNanos())) {
      return new Stale(answer, answer.age(now));
    }
    return Miss.INSTANCE;
  }

  /**
   * Stores a complete answer, replacing any entry under {@code key} — except one stored with the
   * same TTL less than {@link #REWRITE_AFTER} ago, which stays as it is (its answer is as new).
   *
   * @param messageJson the upstream's {@code message} object; copied
   * @param model the model that produced it
   * @param ttl how long the answer stays fresh (a feature's hot or cold TTL)
   * @return false (and nothing stored) when the JSON is not a finished assistant message
   *     ({@code "type": "message"}, a {@code content} array, a non-null {@code stop_reason}),
   *     or it alone would exceed {@link Config#maxBytes()}; true when stored or kept
   */
  public boolean put(CacheKey key, byte[] messageJson, String model, Duration ttl) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(model, "model");
    if (!isFinishedMessage(messageJson)) {
      refused.increment();
      return false;
    }
    return store(key, messageJson, true, model, ttl);
  }

  /**
   * As {@link #put(CacheKey, byte[], String, Duration)}, for an answer still to be assembled (a
   * stream's): {@code messageJson} is asked for it only when it would be stored, not when an entry
   * stored with the same TTL less than {@link #REWRITE_AFTER} ago stays (issue 11: assembling a
   * 30-delta stream's message is a tree parse and a serialisation). Its bytes are not copied: the
   * supplier hands over a fresh array.
   *
   * @param messageJson the message's JSON, or null when there is none to store (nothing stored, not counted as refused)
   * @return as {@link #put(CacheKey, byte[], String, Duration)}; false when the supplier gave null
   */
  public boolean put(CacheKey key, Supplier<byte[]> messageJson, String model, Duration ttl) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(model, "model");
    if (kept(key, ttl, ticker.nanos())) {
      return true;
    }
    byte[] message = messageJson.get();
    if (message == null) {
      return false;
    }
    if (!isFinishedMessage(message)) {
      refused.increment();
      return false;
    }
    return store(key, message, false, model, ttl);
  }

  /**
   * As {@link #put}, for a message the caller already knows to be finished — the pass that read
   * it said so ({@code dev.levee.anthropic.upstream.AnswerShape#check}) — so it is not read
   * again, and not copied: the caller must not modify {@code messageJson} afterwards.
   *
   * @return false (and nothing stored) when it alone would exceed {@link Config#maxBytes()}; true
   *     when stored or kept
   */
  public boolean putFinished(CacheKey key, byte[] messageJson, String model, Duration ttl) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(messageJson, "messageJson");
    Objects.requireNonNull(model, "model");
    return store(key, messageJson, false, model, ttl);
  }

  private boolean store(CacheKey key, byte[] messageJson, boolean copy, String model, Duration ttl) {
    long now = ticker.nanos();
    if (kept(key, ttl, now)) {
      return true;
    }
    CachedAnswer answer = new CachedAnswer(copy ? messageJson.clone() : messageJson, model, now, ttl);
    if (weight(key, answer) > config.maxBytes()) {
      refused.increment();
      return false;
    }
    cache.put(key, answer);
    puts.increment();
    Shared other = shared;
    if (other != null) { // written behind: the client does not wait on the shared store
      Thread.ofVirtual().name("levee-cache-share").start(() -> other.put(key, answer.messageJson(), model, ttl));
    }
    return true;
  }

  /**
   * Whether the entry under {@code key} stays as it is: stored with {@code ttl} less than {@link
   * #REWRITE_AFTER} ago. Read quietly, as the check is no client's read: with the cache on by
   * default every answered request asks this, and a read's bookkeeping — the read buffer, and the
   * eviction policy's upkeep it triggers on the calling thread every few reads — was ~5 % of a
   * JSON request's own CPU when a prompt repeats (issue 11, session 12). A kept entry's
   * popularity is still counted by its client reads (T2, the last resort) and by its rewrite
   * once {@link #REWRITE_AFTER} has passed.
   */
  private boolean kept(CacheKey key, Duration ttl, long now) {
    CachedAnswer held = cache.policy().getIfPresentQuietly(key);
    return held != null && held.ttl().equals(ttl) && now - held.storedAtNanos() < REWRITE_AFTER.toNanos();
  }

  /** Drops every entry of {@code tenant} (see {@link CacheKey#tenantOf}). */
  public void invalidateTenant(String tenant) {
    cache.asMap().keySet().removeIf(key -> key.tenant().equals(tenant));
  }

  /** Entries held now (after pending maintenance). */
  public long size() {
    cache.cleanUp();
    return cache.estimatedSize();
  }

  /** The sum of entry weights now, about the bytes held. */
  public long weightedBytes() {
    cache.cleanUp();
    return cache.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
  }

  public Stats stats() {
    return new Stats(fresh.sum(), stale.sum(), misses.sum(), puts.sum(), refused.sum());
  }

  static int weight(CacheKey key, CachedAnswer answer) {
    long bytes = (long) answer.messageJson().length + 2L * (key.tenant().length() + key.model().length()
        + key.digest().length() + answer.model().length()) + ENTRY_OVERHEAD;
    return (int) Math.min(Integer.MAX_VALUE, bytes);
  }

  /**
   * One streaming pass, no tree (the answer is about to be stored as the bytes it came in): a
   * single JSON object with {@code "type": "message"}, a {@code content} array and a string
   * {@code stop_reason}.
   */
  private static boolean isFinishedMessage(byte[] json) {
    try (JsonParser p = Json.MAPPER.getFactory().createParser(json)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return false;
      }
      boolean message = false;
      boolean content = false;
      boolean stopped = false;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        switch (name) {
          case "type" -> message = value == JsonToken.VALUE_STRING && "message".equals(p.getText());
          case "content" -> content = value == JsonToken.START_ARRAY;
          case "stop_reason" -> stopped = value == JsonToken.VALUE_STRING;
          default -> { }
        }
        p.skipChildren();
      }
      return p.currentToken() == JsonToken.END_OBJECT && p.nextToken() == null && message && content && stopped;
    } catch (IOException e) {
      return false;
    }
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
