package dev.levee.core.breaker;

/**
 * The calls a CLOSED breaker settled inside its sliding window, counted in ten slices of the
 * window (a slice ages out whole), for the failure share that must also be reached before the
 * circuit opens ({@link CircuitBreakerConfig#failureRate()}). Not thread-safe: its breaker's lock
 * guards it.
 */
public final class OutcomeShare {

  private static final int SLICES = 10;

  private final long sliceNanos;
  private final long[] sliceIndex = new long[SLICES];
  private final int[] successes = new int[SLICES];
  private final int[] failures = new int[SLICES];

  /** @param windowNanos the breaker's window */
  public OutcomeShare(long windowNanos) {
    this.sliceNanos = Math.max(1, windowNanos / SLICES);
    java.util.Arrays.fill(sliceIndex, Long.MIN_VALUE);
  }

  public void success(long now) {
    successes[slice(now)]++;
  }

  public void failure(long now) {
    failures[slice(now)]++;
  }

  /** Failures over all calls settled in the window; 0 when there were none. */
  public double failureShare(long now) {
    long current = Math.floorDiv(now, sliceNanos);
    long failed = 0;
    long all = 0;
    for (int i = 0; i < SLICES; i++) {
      if (current - sliceIndex[i] < SLICES) {
        failed += failures[i];
        all += failures[i] + successes[i];
      }
    }
    return all == 0 ? 0 : (double) failed / all;
  }

  public void clear() {
    java.util.Arrays.fill(sliceIndex, Long.MIN_VALUE);
  }

  private int slice(long now) {
    long index = Math.floorDiv(now, sliceNanos);
    int i = (int) Math.floorMod(index, (long) SLICES);
    if (sliceIndex[i] != index) {
      sliceIndex[i] = index;
      successes[i] = 0;
      failures[i] = 0;
    }
    return i;
  }
}
