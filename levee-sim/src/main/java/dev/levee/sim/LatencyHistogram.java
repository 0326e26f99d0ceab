package dev.levee.sim;

import java.util.Arrays;

/**
 * Request latencies at one-millisecond resolution, for percentiles without storing each value.
 * Values are rounded to the nearest millisecond; the array grows to the largest value seen.
 * Not thread-safe.
 */
public final class LatencyHistogram {

  private long[] counts = new long[1024];
  private long total;

  /** Records one latency, in seconds (negative values count as zero). */
  public void record(double seconds) {
    int ms = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(0, Math.round(seconds * 1000)));
    if (ms >= counts.length) {
      counts = Arrays.copyOf(counts, Math.max(ms + 1, counts.length * 2));
    }
    counts[ms]++;
    total++;
  }

  /** Values recorded. */
  public long count() {
    return total;
  }

  /**
   * The smallest recorded latency that at least {@code quantile} of the values do not exceed
   * (nearest-rank), in seconds; NaN when nothing was recorded.
   *
   * @param quantile in {@code (0, 1]}, e.g. 0.99 for p99
   */
  public double percentile(double quantile) {
    if (total == 0) {
      return Double.NaN;
    }
    long rank = Math.max(1, (long) Math.ceil(quantile * total));
    long seen = 0;
    for (int ms = 0; ms < counts.length; ms++) {
      seen += counts[ms];
      if (seen >= rank) {
        return ms / 1000.0;
      }
    }
    throw new IllegalStateException("unreachable: rank " + rank + " of " + total);
  }
}
