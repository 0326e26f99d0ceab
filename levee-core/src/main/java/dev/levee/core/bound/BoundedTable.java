package dev.levee.core.bound;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * A table of per-key state that clients can grow (one entry per model name they invent), kept
 * bounded: at most {@code maxEntries} unpinned entries, the least recently / frequently used
 * evicted first (Caffeine's W-TinyLFU), and any entry unused for {@code idleFor} dropped. An
 * evicted key gets a fresh entry on its next use — never a shared overflow entry, so one key's
 * state never changes what another key gets (DESIGN.md, "Where state lives": a table a client
 * can grow is bounded by eviction).
 *
 * <p>Pinned keys (the configured targets) live outside the bound and are never evicted.
 *
 * <p>Time is the injected {@link Ticker}; eviction work runs on the calling thread, so tests on
 * virtual time are deterministic. Thread-safe.
 *
 * @param <K> the key, with value semantics
 * @param <V> the state kept per key
 */
public final class BoundedTable<K, V> {

  private final Function<? super K, ? extends V> create;
  private final Set<K> pinnedKeys;
  private final Map<K, V> pinned = new ConcurrentHashMap<>();
  private final Cache<K, V> others;
  private final LongAdder evictions = new LongAdder();

  /**
   * @param maxEntries the most unpinned entries kept (at least 1)
   * @param idleFor how long an unpinned entry may go unused before it is dropped (positive)
   * @param pinnedKeys keys that are never evicted (need not be used to be pinned)
   * @param create makes the entry of a key on its first use (or first use after eviction)
   * @throws IllegalArgumentException when {@code maxEntries < 1} or {@code idleFor} is not positive
   */
  public BoundedTable(int maxEntries, Duration idleFor, Ticker ticker, Collection<? extends K> pinnedKeys,
      Function<? super K, ? extends V> create) {
    if (maxEntries < 1) throw new IllegalArgumentException("maxEntries must be at least 1");
    if (!idleFor.isPositive()) throw new IllegalArgumentException("idleFor must be positive");
    Objects.requireNonNull(ticker, "ticker");
    this.create = Objects.requireNonNull(create, "create");
    this.pinnedKeys = Set.copyOf(pinnedKeys);
    this.others = Caffeine.newBuilder()
        .maximumSize(maxEntries)
        .expireAfterAccess(idleFor)
        .ticker(ticker::nanos)
        .executor(Runnable::run)
        .removalListener((K key, V value, RemovalCause cause) -> {
          if (cause.wasEvicted()) {
            evictions.increment();
          }
        })
        .build();
  }

  /** The entry of {@code key}, created on first use (and again after it was evicted). */
  public V get(K key) {
    if (pinnedKeys.contains(key)) {
      return pinned.computeIfAbsent(key, create);
    }
    return others.get(key, create);
  }

  /**
   * The entry of {@code key} if it has one, else null; not a use (it neither creates the entry
   * nor keeps it from being evicted).
   */
  public V peek(K key) {
    V entry = pinned.get(key);
    return entry != null ? entry : others.policy().getIfPresentQuietly(key);
  }

  /** Every entry held now (pinned and unpinned), as an unordered copy; not a use. */
  public Map<K, V> entries() {
    others.cleanUp();
    Map<K, V> all = new java.util.HashMap<>(others.asMap());
    all.putAll(pinned);
    return all;
  }

  /** Entries dropped so far, for being least used past the bound or idle too long. */
  public long evictions() {
    others.cleanUp();
    return evictions.sum();
  }
}
