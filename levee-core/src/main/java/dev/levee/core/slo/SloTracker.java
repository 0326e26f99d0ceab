package dev.levee.core.slo;

import dev.levee.core.sli.SliOutcome;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Objects;

/**
 * Successes and failures against an SLO target, kept in time buckets, giving the error-budget
 * burn rate over any window up to the tracker's horizon.
 *
 * <p><b>Burn rate</b> (SRE workbook ch. 5, "Alerting on SLOs"): the failure share over a window
 * divided by the error budget {@code 1 - target}. With the default target of 0.995 (99.5%
 * success), a window where 7.2% of calls failed burns at 14.4.
 *
 * <p><b>Buckets.</b> Calls are counted in a ring of buckets (default: one per minute over a
 * horizon of 1 h, so 61 buckets of three counters; memory does not grow with traffic). Recording
 * is O(1). A window read sums the buckets it covers; the oldest bucket, which the window's edge
 * cuts, is pro-rated by the share of its time span still inside the window (calls are assumed
 * to be spread evenly inside a bucket), so a 5 min window covers 5 min and not "4 to 5".
 *
 * <p><b>What counts.</b> {@link SliOutcome#SUCCESS} is good; {@link SliOutcome#SERVER_ERROR} and
 * {@link SliOutcome#RATE_LIMITED} are bad; {@link SliOutcome#CLIENT_ERROR} is ignored (the
 * client's own mistake spends no budget). A window with no calls burns at 0.
 *
 * <p>Time comes only from the injected {@link Ticker}. Thread-safe: one lock per tracker, held
 * for O(1) on record and O(buckets) on read.
 */
public final class SloTracker {

  /** The default SLO target: 99.5% of calls succeed. */
  public static final double DEFAULT_TARGET = 0.995;
  /** The long window of the fast-burn alert (SRE workbook ch. 5). */
  public static final Duration LONG_WINDOW = Duration.ofHours(1);
  /** The short window of the fast-burn alert: 1/12 of the long one (SRE workbook ch. 5). */
  public static final Duration SHORT_WINDOW = Duration.ofMinutes(5);
  /** The default bucket width. */
  public static final Duration DEFAULT_BUCKET = Duration.ofMinutes(1);

  private final double target;
  private final Ticker ticker;
  private final long bucketNanos;
  private final long horizonNanos;
  private final long[] index;
  private final long[] good;
  private final long[] bad;

  /** Target 0.995, horizon 1 h, one-minute buckets. */
  public SloTracker(Ticker ticker) {
    this(DEFAULT_TARGET, LONG_WINDOW, DEFAULT_BUCKET, ticker);
  }

  /** Horizon 1 h, one-minute buckets. */
  public SloTracker(double target, Ticker ticker) {
    this(target, LONG_WINDOW, DEFAULT_BUCKET, ticker);
  }

  /**
   * @param target the share of calls that should succeed, strictly between 0 and 1
   * @param horizon the longest window that can be read (positive; at least one bucket)
   * @param bucket the bucket width (positive, at most the horizon)
   * @throws IllegalArgumentException for a target outside (0, 1) or bad durations
   */
  public SloTracker(double target, Duration horizon, Duration bucket, Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    if (!(target > 0 && target < 1)) {
      throw new IllegalArgumentException("SLO target must be strictly between 0 and 1, was " + target);
    }
    if (!bucket.isPositive()) throw new IllegalArgumentException("bucket must be positive, was " + bucket);
    if (horizon.compareTo(bucket) < 0) {
      throw new IllegalArgumentException("horizon " + horizon + " is shorter than one bucket " + bucket);
    }
    this.target = target;
    this.bucketNanos = bucket.toNanos();
    this.horizonNanos = horizon.toNanos();
    // a window of the whole horizon touches at most ceil(horizon / bucket) + 1 buckets
    int slots = Math.toIntExact((horizonNanos + bucketNanos - 1) / bucketNanos + 1);
    this.index = new long[slots];
    this.good = new long[slots];
    this.bad = new long[slots];
    java.util.Arrays.fill(index, Long.MIN_VALUE);
  }

  /** The configured target, e.g. 0.995. */
  public double target() {
    return target;
  }

  /** Records one call by its SLI outcome; {@code null} (a cancelled call) and client errors are ignored. */
  public void record(SliOutcome outcome) {
    if (outcome == null) {
      return;
    }
    switch (outcome) {
      case SUCCESS -> recordSuccess();
      case SERVER_ERROR, RATE_LIMITED -> recordFailure();
      case CLIENT_ERROR -> { }
    }
  }

  /** Records one call that met the SLO. */
  public void recordSuccess() {
    add(true);
  }

  /** Records one call that failed the SLO. */
  public void recordFailure() {
    add(false);
  }

  private void add(boolean success) {
    long now = ticker.nanos();
    long bucket = Math.floorDiv(now, bucketNanos);
    int slot = (int) Math.floorMod(bucket, (long) index.length);
    synchronized (this) {
      if (index[slot] != bucket) {
        index[slot] = bucket;
        good[slot] = 0;
        bad[slot] = 0;
      }
      if (success) {
        good[slot]++;
      } else {
        bad[slot]++;
      }
    }
  }

  /**
   * Forgets every call recorded so far: every window reads as if the tracker had just been made
   * (no calls, no burn). For a caller that knows the recorded calls no longer describe the present,
   * e.g. a feature that saw no request and made no call for a whole SLI window.
   */
  public void clear() {
    synchronized (this) {
      java.util.Arrays.fill(index, Long.MIN_VALUE);
      java.util.Arrays.fill(good, 0);
      java.util.Arrays.fill(bad, 0);
    }
  }

  /**
   * The error-budget burn rate over the last {@code window}: failure share / (1 - target).
   *
   * @param window positive, at most the horizon (default 1 h)
   * @return 0 when the window saw no calls
   * @throws IllegalArgumentException for a window outside (0, horizon]
   */
  public double burnRate(Duration window) {
    double[] counts = counts(window);
    return burn(counts[0], counts[1]);
  }

  /** Burn over {@link #LONG_WINDOW} (1 h) and {@link #SHORT_WINDOW} (5 min), read at one instant. */
  public BurnRates burnRates() {
    return burnRates(LONG_WINDOW, SHORT_WINDOW);
  }

  /**
   * Burn over a long and a short window of the caller's choice, read at one instant (for
   * compressed-time drills, or the workbook's slower pairs such as 6 h / 30 min).
   *
   * @return the long window's burn as {@link BurnRates#burn1h()}, the short one's as {@link
   *     BurnRates#burn5m()} and {@link BurnRates#requests5m()}
   * @throws IllegalArgumentException for a window outside (0, horizon]
   */
  public BurnRates burnRates(Duration longWindow, Duration shortWindow) {
    long longNanos = checkWindow(longWindow);
    long shortNanos = checkWindow(shortWindow);
    long now = ticker.nanos();
    double[] longCounts;
    double[] shortCounts;
    synchronized (this) {
      longCounts = countsAt(now, longNanos);
      shortCounts = countsAt(now, shortNanos);
    }
    return new BurnRates(burn(longCounts[0], longCounts[1]), burn(shortCounts[0], shortCounts[1]),
        Math.round(shortCounts[0] + shortCounts[1]));
  }

  private long checkWindow(Duration window) {
    long windowNanos = window.toNanos();
    if (windowNanos <= 0 || windowNanos > horizonNanos) {
      throw new IllegalArgumentException("window must be in (0, " + Duration.ofNanos(horizonNanos) + "], was " + window);
    }
    return windowNanos;
  }

  /** Calls inside the last {@code window}, pro-rated at its edge: {good, bad}. */
  private double[] counts(Duration window) {
    long windowNanos = checkWindow(window);
    long now = ticker.nanos();
    synchronized (this) {
      return countsAt(now, windowNanos);
    }
  }

  private double[] countsAt(long now, long windowNanos) {
    long current = Math.floorDiv(now, bucketNanos);
    long from = now - windowNanos;
    double goodSum = 0;
    double badSum = 0;
    for (int slot = 0; slot < index.length; slot++) {
      long bucket = index[slot];
      if (bucket > current || bucket < current - index.length + 1) {
        continue; // empty, or a leftover from an earlier lap of the ring
      }
      // the time span over which this bucket's calls were recorded, and how much of it the window covers
      long spanStart = bucket * bucketNanos;
      long spanEnd = Math.min(spanStart + bucketNanos, now);
      double share;
      if (spanEnd <= spanStart) {
        share = 1; // recorded at this very instant
      } else {
        long overlap = spanEnd - Math.max(spanStart, from);
        if (overlap <= 0) {
          continue;
        }
        share = Math.min(1.0, (double) overlap / (spanEnd - spanStart));
      }
      goodSum += good[slot] * share;
      badSum += bad[slot] * share;
    }
    return new double[] {goodSum, badSum};
  }

  private double burn(double goodCount, double badCount) {
    double total = goodCount + badCount;
    return total <= 0 ? 0 : (badCount / total) / (1 - target);
  }
}
