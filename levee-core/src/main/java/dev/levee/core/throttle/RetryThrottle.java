package dev.levee.core.throttle;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * gRPC retry throttling (gRFC A6, "gRPC Retry Design", section "Throttling Retry Attempts").
 *
 * <p>A token count starts at {@code maxTokens}. Every failed call (the first attempt or a retry)
 * takes one token, every successful call adds {@code tokenRatio} tokens; the count stays within
 * {@code [0, maxTokens]}. Retries are allowed only while the count is above {@code maxTokens / 2};
 * first attempts are never throttled. Unlike {@link dev.levee.core.budget.RetryBudget}, a retry
 * spends nothing by itself: failures pay, whether or not they are retried, so a throttle stops
 * retries after about {@code maxTokens / 2} more failures than it has seen successes (weighted
 * by {@code tokenRatio}) and resumes once successes have refilled it past the half-way mark.
 *
 * <p>As in gRFC A6 (and grpc-java), tokens are kept in thousandths, so {@code tokenRatio} is
 * honoured to three decimal places. Typical settings are {@code maxTokens = 10, tokenRatio = 0.1}
 * (the example of gRFC A6).
 *
 * <p>Thread-safe without locks: the count lives in one atomic integer updated by
 * compare-and-set. One throttle is shared by all calls to one upstream (A6 keeps one per server
 * name).
 */
public final class RetryThrottle {

  private static final int SCALE = 1000; // tokens are kept in thousandths, as gRFC A6 asks

  private final int maxMilli;
  private final int thresholdMilli;
  private final int ratioMilli;
  private final AtomicInteger milliTokens;

  /**
   * @param maxTokens the token capacity and initial count; gRFC A6 allows {@code (0, 1000]}
   * @param tokenRatio tokens one success adds; gRFC A6 allows {@code (0, 1]}, three decimals kept
   * @throws IllegalArgumentException when a value is outside those ranges
   */
  public RetryThrottle(double maxTokens, double tokenRatio) {
    if (!(maxTokens > 0 && maxTokens <= 1000)) {
      throw new IllegalArgumentException("max-tokens must be in (0, 1000] (gRFC A6), was " + maxTokens);
    }
    if (!(tokenRatio > 0 && tokenRatio <= 1)) {
      throw new IllegalArgumentException("token-ratio must be in (0, 1] (gRFC A6), was " + tokenRatio);
    }
    this.maxMilli = (int) Math.round(maxTokens * SCALE);
    this.thresholdMilli = maxMilli / 2;
    this.ratioMilli = Math.max(1, (int) Math.round(tokenRatio * SCALE));
    this.milliTokens = new AtomicInteger(maxMilli);
  }

  /** Records a failed call (a retryable failure of any attempt): takes one token, floor 0. */
  public void onFailure() {
    milliTokens.updateAndGet(t -> Math.max(0, t - SCALE));
  }

  /** Records a successful call: adds {@code tokenRatio} tokens, capped at {@code maxTokens}. */
  public void onSuccess() {
    milliTokens.updateAndGet(t -> Math.min(maxMilli, t + ratioMilli));
  }

  /** Whether a retry may be made now: the count is above {@code maxTokens / 2}. Spends nothing. */
  public boolean isRetryAllowed() {
    return milliTokens.get() > thresholdMilli;
  }

  /** Tokens now, in {@code [0, maxTokens]}. */
  public double tokens() {
    return milliTokens.get() / (double) SCALE;
  }

  /** The capacity and initial count, in tokens. */
  public double maxTokens() {
    return maxMilli / (double) SCALE;
  }

  /** Tokens one success adds. */
  public double tokenRatio() {
    return ratioMilli / (double) SCALE;
  }

  @Override
  public String toString() {
    return "RetryThrottle[" + tokens() + "/" + maxTokens() + ", ratio " + tokenRatio() + "]";
  }
}
