package dev.levee.core.route;

import java.time.Duration;
import java.util.Arrays;
import org.HdrHistogram.IntCountsHistogram;

/**
 * The measurements of one target: an ageing success EMA and a sliding p95 of successful calls'
 * latency. Package-private; reached through {@link RouterStatistics}. Thread-safe (one lock per
 * target).
 *
 * <p>The latency histograms (~7 KiB each) are made by a slice's first success and dropped when it
 * slides out, the window's sum with the last of them: a target that never answered holds none,
 * one answered once two (before, six were made with every target, ~42 KiB for each model name a
 * client invented; {@code InventedModelNamesHeapRegressionTest}).
 */
final class TargetStatistics {

  /** Latencies above this are recorded as this (ms). */
  static final long MAX_LATENCY_MS = Duration.ofMinutes(10).toMillis();

  private final StatisticsConfig config;
  private final Duration typicalLatency;
  private final long sliceNanos;
  /** Per slice, its successes' latencies; null for a slice without one. */
  private final IntCountsHistogram[] slices;
  private final long[] sliceIndex;
  /** The sum of the live slices; null when none holds a latency. */
  private IntCountsHistogram window;

  private double success = 1.0;
  private long successAt;
  private boolean outcomeSeen;
  private long outcomes;
  private long p95Ms = -1; // memo, -1 when stale

  TargetStatistics(StatisticsConfig config, Duration typicalLatency) {
    this.config = config;
    this.typicalLatency = typicalLatency;
    this.sliceNanos = Math.max(1, config.latencyWindow().toNanos() / config.latencySlices());
    this.slices = new IntCountsHistogram[config.latencySlices()];
    this.sliceIndex = new long[config.latencySlices()];
    Arrays.fill(sliceIndex, Long.MIN_VALUE);
  }

  synchronized void record(boolean succeeded, Duration latency, long nowNanos) {
    double current = success(nowNanos);
    success = current + config.alpha() * ((succeeded ? 1.0 : 0.0) - current);
    successAt = nowNanos;
    outcomeSeen = true;
    outcomes++;
    if (succeeded) {
      long index = Math.floorDiv(nowNanos, sliceNanos);
      expire(index);
      int slot = (int) Math.floorMod(index, (long) slices.length);
      if (sliceIndex[slot] != index) { // expired above: empty
        sliceIndex[slot] = index;
        slices[slot] = histogram();
      }
      if (window == null) {
        window = histogram();
      }
      long ms = Math.clamp(latency.toMillis(), 1, MAX_LATENCY_MS);
      slices[slot].recordValue(ms);
      window.recordValue(ms);
      p95Ms = -1;
    }
  }

  /** The success EMA aged to {@code nowNanos}: its gap to 1.0 halves every half-life. Call under the lock. */
  private double success(long nowNanos) {
    if (!outcomeSeen) {
      return 1.0;
    }
    double halfLives = (double) Math.max(0, nowNanos - successAt) / config.halfLife().toNanos();
    return 1.0 - (1.0 - success) * Math.pow(0.5, halfLives);
  }

  /** Success, p95 (or the typical latency when the window holds no success) and counts, at {@code nowNanos}. */
  synchronized TargetReading read(long nowNanos) {
    expire(Math.floorDiv(nowNanos, sliceNanos));
    boolean measured = window != null && window.getTotalCount() > 0;
    if (measured && p95Ms < 0) {
      p95Ms = window.getValueAtPercentile(95);
    }
    return new TargetReading(success(nowNanos), measured ? Duration.ofMillis(p95Ms) : typicalLatency, measured,
        outcomes);
  }

  /** Drops the slices that slid out of the window ending in slice {@code currentIndex}. */
  private void expire(long currentIndex) {
    for (int i = 0; i < slices.length; i++) {
      if (sliceIndex[i] != Long.MIN_VALUE && sliceIndex[i] <= currentIndex - slices.length) {
        window.subtract(slices[i]);
        slices[i] = null;
        sliceIndex[i] = Long.MIN_VALUE;
        p95Ms = -1;
      }
    }
    if (window != null && window.getTotalCount() == 0) {
      window = null;
    }
  }

  private static IntCountsHistogram histogram() {
    return new IntCountsHistogram(1, MAX_LATENCY_MS, 2);
  }
}
