package dev.levee.core.route;

import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What one target's last answers said of its rate limits, and whether the next request fits.
 *
 * <p>Each answer's {@link RateLimitReading} replaces what the previous one said of the buckets it
 * reports. A request of {@code N} estimated input tokens is <b>covered</b> when, for every bucket
 * known and not yet reset: requests remaining ≥ 1, tokens and input tokens remaining ≥ N, output
 * tokens remaining ≥ 1. A bucket whose reset has passed is assumed full. Anthropic refills its
 * buckets continuously (a token bucket) and {@code -reset} is when the bucket is full again, so
 * "not covered until the reset" is a safe upper bound on the wait, not the exact moment capacity
 * returns. A 429's {@code retry-after} empties the requests bucket until that wait ends.
 *
 * <p>{@link #tryReserve(long)} takes what a request will spend from the remaining counts, so that
 * concurrent requests between two answers do not all see the same last "remaining 1" (a request
 * that then fails is not given back: the next answer's headers correct the counts).
 *
 * <p>Thread-safe; time comes from the injected ticker.
 */
public final class RateLimitState {

  private enum Kind { REQUESTS, TOKENS, INPUT_TOKENS, OUTPUT_TOKENS }

  private final Ticker ticker;
  private final long[] remaining = {-1, -1, -1, -1}; // -1: unknown
  private final long[] resetAt = new long[4];

  public RateLimitState(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  /** Takes in the buckets one answer reported. */
  public synchronized void observe(RateLimitReading reading) {
    long now = ticker.nanos();
    reading.requests().ifPresent(bucket -> set(Kind.REQUESTS, bucket, now));
    reading.tokens().ifPresent(bucket -> set(Kind.TOKENS, bucket, now));
    reading.inputTokens().ifPresent(bucket -> set(Kind.INPUT_TOKENS, bucket, now));
    reading.outputTokens().ifPresent(bucket -> set(Kind.OUTPUT_TOKENS, bucket, now));
  }

  /** A 429 asked to wait {@code retryAfter}: no request is covered until it has passed. */
  public synchronized void observeRetryAfter(Duration retryAfter) {
    long until = ticker.nanos() + retryAfter.toNanos();
    int i = Kind.REQUESTS.ordinal();
    if (remaining[i] != 0 || until - resetAt[i] > 0) {
      resetAt[i] = until;
    }
    remaining[i] = 0;
  }

  /** Whether a request of {@code inputTokens} estimated input tokens is covered now. */
  public synchronized boolean covers(long inputTokens) {
    return untilCovered(inputTokens, ticker.nanos()).isZero();
  }

  /**
   * How long until a request of {@code inputTokens} is covered: zero when it is now, else the
   * time to the latest reset among the buckets that fall short.
   */
  public synchronized Duration untilCovered(long inputTokens) {
    return untilCovered(inputTokens, ticker.nanos());
  }

  /**
   * Reserves a request of {@code inputTokens} if it is covered: one request and {@code inputTokens}
   * tokens are taken from the known buckets.
   *
   * @return whether the request was covered (and reserved)
   */
  public synchronized boolean tryReserve(long inputTokens) {
    long now = ticker.nanos();
    if (!untilCovered(inputTokens, now).isZero()) {
      return false;
    }
    take(Kind.REQUESTS, 1, now);
    take(Kind.TOKENS, inputTokens, now);
    take(Kind.INPUT_TOKENS, inputTokens, now);
    return true;
  }

  /** The buckets known now (a bucket whose reset has passed is left out), with the time to each reset. */
  public synchronized RateLimitReading snapshot() {
    long now = ticker.nanos();
    return new RateLimitReading(bucket(Kind.REQUESTS, now), bucket(Kind.TOKENS, now),
        bucket(Kind.INPUT_TOKENS, now), bucket(Kind.OUTPUT_TOKENS, now));
  }

  private Optional<RateLimitReading.Bucket> bucket(Kind kind, long now) {
    int i = kind.ordinal();
    if (!live(i, now)) {
      return Optional.empty();
    }
    return Optional.of(new RateLimitReading.Bucket(remaining[i], Duration.ofNanos(resetAt[i] - now)));
  }

  private Duration untilCovered(long inputTokens, long now) {
    long wait = 0;
    wait = Math.max(wait, shortfall(Kind.REQUESTS, 1, now));
    wait = Math.max(wait, shortfall(Kind.TOKENS, inputTokens, now));
    wait = Math.max(wait, shortfall(Kind.INPUT_TOKENS, inputTokens, now));
    wait = Math.max(wait, shortfall(Kind.OUTPUT_TOKENS, 1, now));
    return Duration.ofNanos(wait);
  }

  /** Nanoseconds until {@code kind} covers {@code needed}: 0 when it does now. */
  private long shortfall(Kind kind, long needed, long now) {
    int i = kind.ordinal();
    if (!live(i, now) || remaining[i] >= needed) {
      return 0;
    }
    return resetAt[i] - now;
  }

  private boolean live(int i, long now) {
    return remaining[i] >= 0 && resetAt[i] - now > 0;
  }

  private void take(Kind kind, long amount, long now) {
    int i = kind.ordinal();
    if (live(i, now)) {
      remaining[i] = Math.max(0, remaining[i] - amount);
    }
  }

  private void set(Kind kind, RateLimitReading.Bucket bucket, long now) {
    remaining[kind.ordinal()] = bucket.remaining();
    resetAt[kind.ordinal()] = now + bucket.untilReset().toNanos();
  }
}
