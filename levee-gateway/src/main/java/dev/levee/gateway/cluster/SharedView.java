package dev.levee.gateway.cluster;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.levee.core.time.Ticker;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A replica's short-lived copy of shared values, so a request reads local memory, not Redis.
 *
 * <p>A copy lives at most {@link ClusterConfig#viewTtl()} (default 50 ms) and is dropped at once
 * when an invalidation for its key arrives over pub/sub, or when the link rejoins. A value that
 * could not be read (Redis away) is not kept. Bounded at 10,000 keys. Thread-safe.
 *
 * <p><b>Refresh ahead.</b> A copy older than half the TTL is still served, and the request that
 * finds it starts one background read (one per key at a time); with steady traffic a busy key
 * never expires, so requests do not wait on Redis for it. Only a missing copy (first use, after an
 * invalidation or an idle spell) is read on the request's thread. A background read that started
 * before an invalidation or a newer write is dropped, so it never brings an old value back.
 */
final class SharedView<V> {

  private record Copy<V>(V value, long readAt) {}

  private final Cache<String, Copy<V>> copies;
  private final Ticker ticker;
  private final long refreshAfterNanos;
  private final Set<String> refreshing = ConcurrentHashMap.newKeySet();
  private final Object lock = new Object();
  private long generation; // guarded by lock: bumped by every write and invalidation

  SharedView(RedisLink link, Ticker ticker) {
    this.ticker = ticker;
    this.refreshAfterNanos = link.config().viewTtl().toNanos() / 2;
    this.copies = Caffeine.newBuilder()
        .expireAfterWrite(link.config().viewTtl())
        .maximumSize(10_000)
        .ticker(ticker::nanos)
        .executor(Runnable::run)
        .build();
    link.onInvalidation(this::invalidate);
    link.onRejoin(() -> {
      synchronized (lock) {
        generation++;
        copies.invalidateAll();
      }
    });
  }

  /** The local copy of {@code key}, read through {@code loader} when absent or expired. */
  Optional<V> get(String key, Function<String, Optional<V>> loader) {
    Copy<V> copy = copies.getIfPresent(key);
    if (copy == null) {
      Copy<V> loaded = copies.get(key, k -> loader.apply(k).map(v -> new Copy<>(v, ticker.nanos())).orElse(null));
      return loaded == null ? Optional.empty() : Optional.of(loaded.value());
    }
    if (ticker.nanos() - copy.readAt() >= refreshAfterNanos && refreshing.add(key)) {
      refreshInBackground(key, loader);
    }
    return Optional.of(copy.value());
  }

  void put(String key, V value) {
    synchronized (lock) {
      generation++;
      copies.put(key, new Copy<>(value, ticker.nanos()));
    }
  }

  void invalidate(String key) {
    synchronized (lock) {
      generation++;
      copies.invalidate(key);
    }
  }

  /** Background reads not finished yet (tests). */
  int refreshesInFlight() {
    return refreshing.size();
  }

  private void refreshInBackground(String key, Function<String, Optional<V>> loader) {
    long started;
    synchronized (lock) {
      started = generation;
    }
    Thread.ofVirtual().name("levee-cluster-refresh").start(() -> {
      try {
        loader.apply(key).ifPresent(value -> {
          synchronized (lock) {
            if (generation == started) {
              copies.put(key, new Copy<>(value, ticker.nanos()));
            }
          }
        });
      } finally {
        refreshing.remove(key);
      }
    });
  }
}
