package dev.levee.gateway.cluster;

import dev.levee.core.chain.Target;
import dev.levee.core.route.RouterStatistics;
import dev.levee.core.route.StatisticsConfig;
import dev.levee.core.route.TargetReading;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The router's per-target readings shared by the replicas of a cluster (issue 14).
 *
 * <p><b>Publishing.</b> Every {@link #PUBLISH_EVERY} (never per request) the replica writes each
 * target's own reading whose outcome count or measured flag changed since the last write to the
 * hash {@code levee:<name>:route:{<target>}}, field = replica id, value = {@code
 * success,p95Ms,measured,outcomes,sampledAtEpochMillis}; the hash lives {@link #TTL_HALF_LIVES}
 * half-lives after its last write. What was last written is remembered only for the targets the
 * statistics hold (at most {@link RouterStatistics#MAX_TARGETS}, 1,000, besides the configured
 * ones), so the model names clients invent leave nothing here once the statistics evict them.
 *
 * <p><b>Merging</b> ({@link #merge}, on the request path; the hash is read through a {@link
 * SharedView}, so at most one Redis read per target per view TTL). Another replica's reading is
 * used when it is at most {@code TTL_HALF_LIVES} half-lives old; its success is aged to now as
 * the local EMA ages (the gap to 1.0 halves every half-life). Each reading (this replica's own
 * included) weighs {@code min(outcomes, 2/α − 1)}: the number of samples an EMA with weight α
 * stands for, so a long-lived replica does not outweigh a busy new one. Success is the weighted
 * mean; p95 the weighted mean of the measured p95s (an approximation: percentiles do not merge
 * exactly); measured when any is. With no weight at all the own reading stands. Redis away or
 * slow: the own reading only.
 */
public final class SharedRouterStatistics implements RouterStatistics.Sharing {

  /** How often the readings are published. */
  public static final Duration PUBLISH_EVERY = Duration.ofSeconds(1);
  /** How many half-lives a published reading is used and kept. */
  public static final int TTL_HALF_LIVES = 3;

  private record Published(long outcomes, boolean measured) {}

  private final RouterStatistics statistics;
  private final RedisLink link;
  private final SharedView<Map<String, String>> views;
  private final InstantSource wall;
  private final String replica;
  private final Duration halfLife;
  private final double maxWeight;
  private final Map<String, Published> published = new ConcurrentHashMap<>();

  SharedRouterStatistics(RouterStatistics statistics, RedisLink link, SharedView<Map<String, String>> views,
      InstantSource wall, String replica) {
    this.statistics = statistics;
    this.link = link;
    this.views = views;
    this.wall = wall;
    this.replica = replica;
    StatisticsConfig config = statistics.config();
    this.halfLife = config.halfLife();
    this.maxWeight = 2 / config.alpha() - 1;
  }

  /** Writes the readings that changed since the last write (the flusher's thread). */
  void publish() {
    if (!link.tryShared()) {
      return;
    }
    long now = wall.millis();
    long ttl = halfLife.multipliedBy(TTL_HALF_LIVES).toMillis();
    Map<String, TargetReading> readings = statistics.readings();
    published.keySet().retainAll(readings.keySet()); // targets the statistics evicted: none kept for them
    readings.forEach((id, reading) -> {
      Published current = new Published(reading.outcomes(), reading.measured());
      if (reading.outcomes() == 0 || current.equals(published.get(id))) {
        return;
      }
      String key = link.key(viewKey(id));
      String value = String.format(Locale.ROOT, "%.6f,%d,%b,%d,%d", reading.success(), reading.p95().toMillis(),
          reading.measured(), reading.outcomes(), now);
      if (link.<Boolean>call(c -> c.hset(key, replica, value)).isPresent()) {
        link.<Boolean>call(c -> c.pexpire(key, ttl));
        published.put(id, current);
      }
    });
  }

  /** Targets whose last publication this replica remembers (tests). */
  int publishedCount() {
    return published.size();
  }

  @Override
  public TargetReading merge(Target target, TargetReading local) {
    if (!link.tryShared()) {
      return local;
    }
    Optional<Map<String, String>> others = views.get(viewKey(target.id()), k -> link.call(c -> c.hgetall(link.key(k))));
    if (others.isEmpty()) {
      return local;
    }
    Sum sum = new Sum();
    sum.add(local.success(), local.p95().toMillis(), local.measured(), weight(local.outcomes()));
    long now = wall.millis();
    long ttl = halfLife.multipliedBy(TTL_HALF_LIVES).toMillis();
    others.get().forEach((field, value) -> {
      if (!field.equals(replica)) {
        addReading(sum, value, now, ttl);
      }
    });
    if (sum.weight == 0) {
      return local;
    }
    boolean measured = sum.p95Weight > 0;
    Duration p95 = measured ? Duration.ofMillis(Math.round(sum.p95 / sum.p95Weight)) : local.p95();
    return new TargetReading(sum.success / sum.weight, p95, measured, local.outcomes());
  }

  private void addReading(Sum sum, String value, long now, long ttl) {
    String[] parts = value.split(",");
    if (parts.length != 5) {
      return; // not ours to read: ignored
    }
    try {
      double success = Double.parseDouble(parts[0]);
      long p95 = Long.parseLong(parts[1]);
      boolean measured = Boolean.parseBoolean(parts[2]);
      long outcomes = Long.parseLong(parts[3]);
      long age = Math.max(0, now - Long.parseLong(parts[4]));
      if (age > ttl || !(success >= 0 && success <= 1) || p95 < 0) {
        return;
      }
      double aged = 1.0 - (1.0 - success) * Math.pow(0.5, (double) age / halfLife.toMillis());
      sum.add(aged, p95, measured, weight(outcomes));
    } catch (NumberFormatException e) {
      // a malformed field is ignored, as a missing one
    }
  }

  private double weight(long outcomes) {
    return Math.min(Math.max(0, outcomes), maxWeight);
  }

  private static final class Sum {
    double success;
    double weight;
    double p95;
    double p95Weight;

    void add(double success, long p95Ms, boolean measured, double weight) {
      this.success += success * weight;
      this.weight += weight;
      if (measured) {
        this.p95 += p95Ms * weight;
        this.p95Weight += weight;
      }
    }
  }

  private static String viewKey(String target) {
    return "route:{" + target + "}";
  }
}
