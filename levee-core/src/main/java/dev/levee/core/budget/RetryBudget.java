package dev.levee.core.budget;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A retry budget: a token bucket that caps how much extra load retries may add.
 *
 * <p>The bucket starts full at {@code max} tokens. Every successful call adds {@code ratio}
 * tokens (capped at {@code max}); every retry needs at least one token and spends one, or is
 * denied. With ratio {@code r}, retries settle at about {@code r} per success, so a failing
 * upstream sees at most {@code 1 + r} times the offered load once the initial tokens are spent.
 * (The same bucket as gRFC A6 retry throttling, without its half-full threshold.)
 *
 * <p>In Levee a "retry" is any upstream call made for a client request after its first call,
 * whether to the same target or to a fallback.
 *
 * <p>Tokens are counted exactly, in millionths of a token, so that ten successes at a ratio of
 * 0.1 earn one whole retry (summing doubles would leave 0.999…). A {@code ratio} is rounded to
 * the nearest millionth (a positive ratio earns at least one millionth); a {@code max} too large
 * to count that finely (over about 9·10^12 tokens, as in {@link #unlimited()}) never denies.
 *
 * <p>Thread-safe without locks: the token count lives in one atomic word updated by
 * compare-and-set.
 */
public final class RetryBudget {

  private static final long UNITS_PER_TOKEN = 1_000_000;

  private final double max;
  private final double ratio;
  private final boolean unlimited;
  private final long maxUnits;
  private final long ratioUnits;
  private final AtomicLong units; // tokens left, in millionths

  /**
   * @param max the bucket's capacity and initial fill, in tokens (> 0)
   * @param ratio tokens earned per success (>= 0)
   */
  public RetryBudget(double max, double ratio) {
    if (!(max > 0)) throw new IllegalArgumentException("retry-budget max must be positive, was " + max);
    if (!(ratio >= 0)) throw new IllegalArgumentException("retry-budget ratio must not be negative, was " + ratio);
    this.max = max;
    this.ratio = ratio;
    this.unlimited = max >= (double) (Long.MAX_VALUE / UNITS_PER_TOKEN);
    this.maxUnits = unlimited ? Long.MAX_VALUE : Math.round(max * UNITS_PER_TOKEN);
    this.ratioUnits = ratio > 0 ? Math.max(1, Math.round(ratio * UNITS_PER_TOKEN)) : 0;
    this.units = new AtomicLong(maxUnits);
  }

  /** A budget that never denies a retry. */
  public static RetryBudget unlimited() {
    return new RetryBudget(Double.MAX_VALUE, 0);
  }

  /** Records a successful call: adds {@code ratio} tokens, capped at {@code max}. */
  public void onSuccess() {
    if (unlimited || ratioUnits == 0) {
      return;
    }
    units.accumulateAndGet(ratioUnits, (left, earned) -> left + Math.min(earned, maxUnits - left));
  }

  /** Spends one token for a retry; returns false (and spends nothing) when fewer than one remain. */
  public boolean tryAcquire() {
    if (unlimited) {
      return true;
    }
    long left;
    do {
      left = units.get();
      if (left < UNITS_PER_TOKEN) {
        return false;
      }
    } while (!units.compareAndSet(left, left - UNITS_PER_TOKEN));
    return true;
  }

  /** Tokens left. */
  public double remaining() {
    return unlimited ? max : (double) units.get() / UNITS_PER_TOKEN;
  }

  public double max() {
    return max;
  }

  public double ratio() {
    return ratio;
  }

  @Override
  public String toString() {
    return "RetryBudget[" + remaining() + "/" + max + ", ratio " + ratio + "]";
  }
}
