package dev.levee.core.budget;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A retry budget: a token bucket that caps how much extra load retries may add.
 *
 * <p>The bucket starts full at {@code max} tokens. Every successful call adds {@code ratio}
 * tokens (capped at {@code max}); every retry needs at least one token and spends one, or is
 * denied. With ratio {@code r}, retries settle at about {@code r} per success, so a failing
 * upstream sees at most {@code 1 + r} times the offered load once the initial tokens are spent.
 * (The same bucket as gRFC A6 retry throttling, without its half-full threshold.)
 *
 * <p>In Levee a "retry" is any upstream call made for a client request after its first call on
 * the same bucket. The gateway keeps one bucket per target, like gRFC A6's token count per server
 * ({@link dev.levee.core.chain.RetryBudgets}): a retry of a target, a hedge or a stream recovery
 * spends a token of the bucket of the target it goes to, and a fallback — the next target's first
 * call — spends none. With one bucket for every target, a fallback spends too.
 *
 * <p>Tokens are an IEEE 754 double, summed exactly as the published retry-budget study did (its
 * seeded table is reproduced to the digit by {@code levee simulate retry-budget}). Sums of
 * decimal ratios carry the usual rounding: ten successes at ratio 0.1 from empty leave
 * 0.9999999999999999 tokens, so the retry is funded by the eleventh. A bucket that is never
 * drained, the normal case, is unaffected.
 *
 * <p>Thread-safe without locks: the token count lives in one atomic word updated by
 * compare-and-set.
 */
public final class RetryBudget implements Budget {

  /** The default capacity and initial fill: 500 tokens. */
  public static final double DEFAULT_MAX = 500;

  /** The default tokens earned per success: 0.25 (at most 1.25× the offered load on a failing upstream). */
  public static final double DEFAULT_RATIO = 0.25;

  private final double max;
  private final double ratio;
  private final AtomicLong tokenBits; // Double.doubleToRawLongBits(tokens)
  private final LongAdder denied = new LongAdder();

  /**
   * @param max the bucket's capacity and initial fill, in tokens (> 0)
   * @param ratio tokens earned per success (>= 0)
   */
  public RetryBudget(double max, double ratio) {
    if (!(max > 0)) throw new IllegalArgumentException("retry-budget max must be positive, was " + max);
    if (!(ratio >= 0)) throw new IllegalArgumentException("retry-budget ratio must not be negative, was " + ratio);
    this.max = max;
    this.ratio = ratio;
    this.tokenBits = new AtomicLong(Double.doubleToRawLongBits(max));
  }

  /** A budget that never denies a retry. */
  public static RetryBudget unlimited() {
    return new RetryBudget(Double.MAX_VALUE, 0);
  }

  /** Records a successful call: adds {@code ratio} tokens, capped at {@code max}. */
  @Override
  public void onSuccess() {
    if (ratio == 0) {
      return;
    }
    long bits;
    double next;
    do {
      bits = tokenBits.get();
      double tokens = Double.longBitsToDouble(bits);
      next = Math.min(max, tokens + ratio);
      if (next == tokens) {
        return;
      }
    } while (!tokenBits.compareAndSet(bits, Double.doubleToRawLongBits(next)));
  }

  /** Spends one token for a retry; returns false (and spends nothing) when fewer than one remain. */
  @Override
  public boolean tryAcquire() {
    long bits;
    do {
      bits = tokenBits.get();
      double tokens = Double.longBitsToDouble(bits);
      if (tokens < 1) {
        denied.increment();
        return false;
      }
      if (tokens == Double.MAX_VALUE) {
        return true;
      }
    } while (!tokenBits.compareAndSet(bits, Double.doubleToRawLongBits(Double.longBitsToDouble(bits) - 1)));
    return true;
  }

  /** Calls refused so far ({@link #tryAcquire} returned false), for metrics. */
  @Override
  public long denied() {
    return denied.sum();
  }

  /** Tokens left. */
  @Override
  public double remaining() {
    return Double.longBitsToDouble(tokenBits.get());
  }

  @Override
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
