package dev.levee.core.sli;

import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Objects;
import org.HdrHistogram.IntCountsHistogram;

/**
 * Counts and latencies of upstream calls over a sliding time window, for health reports and
 * SLIs.
 *
 * <p>The window is a ring of {@code buckets} equal time slices (default 60 s in 12 slices of 5 s);
 * a slice older than the window is cleared when its slot is reused, so the window slides in
 * steps of one slice. Recording is O(1); latencies go into one HdrHistogram per slice (1 ms to
 * 1 h, 2 significant digits, ~9 KiB) and are merged when a snapshot is taken. A slice's histogram
 * is made by its first latency and dropped when the slice is reused, so a window holds one per
 * slice that had a latency sample: a window that saw one answer holds one, one that saw only
 * failures none (before, all 12 were made with the window: ~105 KiB for each model name a client
 * invented, up to the 1,000 names kept; the soak's {@code InventedModelNamesHeapRegressionTest}).
 *
 * <p>Thread-safe: one lock per window (never a global one).
 */
public final class SlidingWindow {

  private static final long MAX_LATENCY_MS = Duration.ofHours(1).toMillis();

  private final Ticker ticker;
  private final long sliceNanos;
  private final Slice[] slices;
  private long lastFailureAt; // ticker reading of the newest 5xx or 429; valid when failedOnce
  private boolean failedOnce;

  /** A 60 s window in 12 slices. */
  public SlidingWindow(Ticker ticker) {
    this(Duration.ofSeconds(60), 12, ticker);
  }

  /**
   * @param window the span covered (positive)
   * @param buckets how many slices it is cut into (at least 1)
   */
  public SlidingWindow(Duration window, int buckets, Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    if (buckets < 1) throw new IllegalArgumentException("buckets must be at least 1");
    if (!window.isPositive()) throw new IllegalArgumentException("window must be positive");
    this.sliceNanos = Math.max(1, window.toNanos() / buckets);
    this.slices = new Slice[buckets];
    for (int i = 0; i < buckets; i++) {
      slices[i] = new Slice();
    }
  }

  /**
   * Records one call.
   *
   * @param latency the latency sample of a success (time to first token, or to the answer); null
   *     for a success that is no latency sample (counted, its time left out of the p99); ignored
   *     for failures
   */
  public void record(SliOutcome outcome, Duration latency) {
    long now = ticker.nanos();
    long index = Math.floorDiv(now, sliceNanos);
    synchronized (this) {
      Slice slice = slices[(int) Math.floorMod(index, (long) slices.length)];
      if (slice.index != index) {
        slice.reset(index);
      }
      switch (outcome) {
        case SUCCESS -> {
          slice.successes++;
          if (latency != null) {
            slice.latency().recordValue(Math.min(MAX_LATENCY_MS, Math.max(1, latency.toMillis())));
          }
        }
        case SERVER_ERROR -> {
          slice.serverErrors++;
          failedAt(now);
        }
        case RATE_LIMITED -> {
          slice.rateLimited++;
          failedAt(now);
        }
        case CLIENT_ERROR -> slice.clientErrors++;
      }
    }
  }

  private void failedAt(long now) {
    if (!failedOnce || now - lastFailureAt > 0) {
      lastFailureAt = now;
      failedOnce = true;
    }
  }

  /**
   * Whether a call failed on the target's side ({@link SliOutcome#SERVER_ERROR} or {@link
   * SliOutcome#RATE_LIMITED}) within the last {@code span}, bounds included, and since the last
   * {@link #clear()}. Used to tell failures that are still happening from ones the window merely
   * remembers (a step down needs fresh ones).
   *
   * @param span how far back a failure counts as fresh (zero or positive)
   */
  public boolean failedWithin(Duration span) {
    long now = ticker.nanos();
    synchronized (this) {
      return failedOnce && now - lastFailureAt <= span.toNanos();
    }
  }

  /**
   * Forgets every call recorded so far, as if the window had just been made: e.g. when the
   * target's circuit closes after successful trials, the failures before are over.
   */
  public void clear() {
    synchronized (this) {
      for (Slice slice : slices) {
        slice.reset(Long.MIN_VALUE);
      }
      failedOnce = false;
    }
  }

  /** What the window holds now. */
  public SliSnapshot snapshot() {
    long current = Math.floorDiv(ticker.nanos(), sliceNanos);
    return snapshot(current - slices.length + 1, current);
  }

  /**
   * What the newest {@code span} of the window holds: the slices that overlap the last {@code
   * span} (so up to one slice more; at most the whole window). Its p99 is the short window's of a
   * multiwindow rule: whether calls are slow now, not whether the window remembers slow calls.
   *
   * @param span zero or positive; zero reads the current slice
   */
  public SliSnapshot snapshot(Duration span) {
    if (span.isNegative()) throw new IllegalArgumentException("span must not be negative, was " + span);
    long now = ticker.nanos();
    long current = Math.floorDiv(now, sliceNanos);
    long oldest = Math.max(current - slices.length + 1, Math.floorDiv(now - span.toNanos(), sliceNanos));
    return snapshot(oldest, current);
  }

  private SliSnapshot snapshot(long oldest, long current) {
    IntCountsHistogram merged = null; // made only when a slice in the span holds latencies
    long successes = 0, serverErrors = 0, rateLimited = 0, clientErrors = 0;
    synchronized (this) {
      for (Slice slice : slices) {
        if (slice.index >= oldest && slice.index <= current) {
          successes += slice.successes;
          serverErrors += slice.serverErrors;
          rateLimited += slice.rateLimited;
          clientErrors += slice.clientErrors;
          if (slice.latency != null) {
            if (merged == null) {
              merged = newHistogram();
            }
            merged.add(slice.latency);
          }
        }
      }
    }
    double seconds = (current - oldest + 1) * sliceNanos / 1e9;
    boolean any = merged != null && merged.getTotalCount() > 0;
    return new SliSnapshot(seconds, successes, serverErrors, rateLimited, clientErrors,
        any ? merged.getValueAtPercentile(50) : 0,
        any ? merged.getValueAtPercentile(95) : 0,
        any ? merged.getValueAtPercentile(99) : 0);
  }

  private static IntCountsHistogram newHistogram() {
    return new IntCountsHistogram(1, MAX_LATENCY_MS, 2);
  }

  private static final class Slice {
    long index = Long.MIN_VALUE;
    long successes;
    long serverErrors;
    long rateLimited;
    long clientErrors;
    IntCountsHistogram latency; // null until the slice's first latency sample

    void reset(long newIndex) {
      index = newIndex;
      successes = serverErrors = rateLimited = clientErrors = 0;
      latency = null;
    }

    /** The slice's histogram, made by its first latency sample. */
    IntCountsHistogram latency() {
      if (latency == null) {
        latency = newHistogram();
      }
      return latency;
    }
  }
}
