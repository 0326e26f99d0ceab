package dev.levee.gateway.health;

import dev.levee.core.tier.Tier;
import dev.levee.core.time.Ticker;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Time each feature spent in each tier ({@code levee_tier_seconds_total}): on every {@link
 * #seconds} read (each scrape) the time since the last read is credited to the tier the feature
 * was in at that read, so the resolution is the scrape interval. Thread-safe.
 */
final class TierClock {

  private final Function<String, Tier> tiers;
  private final Ticker ticker;
  private final Map<String, Tier> last = new HashMap<>();
  private final Map<String, long[]> nanos = new HashMap<>(); // feature → nanos per tier ordinal
  private long lastNanos;

  TierClock(Iterable<String> features, Function<String, Tier> tiers, Ticker ticker) {
    this.tiers = tiers;
    this.ticker = ticker;
    this.lastNanos = ticker.nanos();
    for (String feature : features) {
      last.put(feature, tiers.apply(feature));
      nanos.put(feature, new long[Tier.values().length]);
    }
  }

  /** Seconds {@code feature} has spent at {@code tier} so far. */
  synchronized double seconds(String feature, Tier tier) {
    sample();
    long[] spent = nanos.get(feature);
    return spent == null ? 0 : spent[tier.ordinal()] / 1e9;
  }

  private void sample() {
    long now = ticker.nanos();
    long elapsed = now - lastNanos;
    if (elapsed <= 0) {
      return;
    }
    lastNanos = now;
    last.replaceAll((feature, tier) -> {
      nanos.get(feature)[tier.ordinal()] += elapsed;
      return tiers.apply(feature);
    });
  }
}
