package dev.levee.core.route;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How {@link RouterStatistics} measure a target.
 *
 * @param alpha the weight of each outcome in the success EMA, in (0, 1]; default 0.1 (the
 *     published design: {@code success ← success + α × (outcome − success)})
 * @param halfLife how fast the success rate forgets: between outcomes, the gap between the EMA and
 *     a perfect 1.0 halves every {@code halfLife}; default 10 minutes. A target that failed every
 *     call an hour ago and has not been called since has lost 2<sup>−6</sup> (under 2 %) of that
 *     penalty, so the router tries it again instead of punishing it forever
 * @param latencyWindow the span over which p95 latency is measured; default 5 minutes. When the
 *     window holds no success, p95 is the model's typical latency again
 * @param latencySlices how many slices the window slides by; default 5 (one minute each)
 * @param typicalLatency the latency assumed for a model before (or without) measurements, by
 *     exact model name; the published example uses Opus 3,000 ms and Sonnet 1,200 ms
 * @param defaultTypicalLatency the typical latency of a model not in {@code typicalLatency};
 *     default 2 s
 * @throws IllegalArgumentException when a value is out of range
 */
public record StatisticsConfig(double alpha, Duration halfLife, Duration latencyWindow, int latencySlices,
    Map<String, Duration> typicalLatency, Duration defaultTypicalLatency) {

  /** The defaults listed above, with no per-model typical latencies. */
  public static final StatisticsConfig DEFAULT = new StatisticsConfig(0.1, Duration.ofMinutes(10),
      Duration.ofMinutes(5), 5, Map.of(), Duration.ofSeconds(2));

  public StatisticsConfig {
    if (!(alpha > 0 && alpha <= 1)) {
      throw new IllegalArgumentException("alpha must be within (0, 1], was " + alpha);
    }
    requirePositive(halfLife, "halfLife");
    requirePositive(latencyWindow, "latencyWindow");
    requirePositive(defaultTypicalLatency, "defaultTypicalLatency");
    if (latencySlices < 1) {
      throw new IllegalArgumentException("latencySlices must be at least 1, was " + latencySlices);
    }
    typicalLatency = Map.copyOf(typicalLatency);
    typicalLatency.forEach((model, latency) -> requirePositive(latency, "typical latency of " + model));
  }

  /** This config with {@code typicalLatency} per model name. */
  public StatisticsConfig withTypicalLatency(Map<String, Duration> typicalLatency) {
    return new StatisticsConfig(alpha, halfLife, latencyWindow, latencySlices, typicalLatency, defaultTypicalLatency);
  }

  /** This config with another half-life. */
  public StatisticsConfig withHalfLife(Duration halfLife) {
    return new StatisticsConfig(alpha, halfLife, latencyWindow, latencySlices, typicalLatency, defaultTypicalLatency);
  }

  /** The typical latency of {@code model}. */
  public Duration typicalLatencyOf(String model) {
    return typicalLatency.getOrDefault(model, defaultTypicalLatency);
  }

  private static void requirePositive(Duration value, String name) {
    Objects.requireNonNull(value, name);
    if (!value.isPositive()) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
  }
}
