package dev.levee.gateway.cluster;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.levee.core.time.Ticker;
import java.util.Optional;
import java.util.function.Function;

/**
 * A replica's short-lived copy of shared values, so a request reads local memory, not Redis.
 *
 * <p>A copy lives at most {@link ClusterConfig#viewTtl()} (default 50 ms) and is dropped at once
 * when an invalidation for its key arrives over pub/sub, or when the link rejoins. A value that
 * could not be read (Redis away) is not kept. Bounded at 10,000 keys. Thread-safe.
 */
final class SharedView<V> {

  private final Cache<String, V> copies;

  SharedView(RedisLink link, Ticker ticker) {
    this.copies = Caffeine.newBuilder()
        .expireAfterWrite(link.config().viewTtl())
        .maximumSize(10_000)
        .ticker(ticker::nanos)
        .executor(Runnable::run)
        .build();
    link.onInvalidation(copies::invalidate);
    link.onRejoin(copies::invalidateAll);
  }

  /** The local copy of {@code key}, read through {@code loader} when absent or expired. */
  Optional<V> get(String key, Function<String, Optional<V>> loader) {
    return Optional.ofNullable(copies.get(key, k -> loader.apply(k).orElse(null)));
  }

  void put(String key, V value) {
    copies.put(key, value);
  }

  void invalidate(String key) {
    copies.invalidate(key);
  }
}
