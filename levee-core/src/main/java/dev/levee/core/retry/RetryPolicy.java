package dev.levee.core.retry;

import java.util.Objects;

/**
 * Per-target retry settings of a fallback chain.
 *
 * @param maxRetries retries of one target after its first attempt (default 2; 0 disables)
 * @param backoff the wait between retries when no retry-after was stated
 * @param retryAfter how stated waits are honoured
 */
public record RetryPolicy(int maxRetries, Backoff backoff, RetryAfterPolicy retryAfter) {

  /** Two retries per target, default backoff and retry-after handling. */
  public static final RetryPolicy DEFAULT = new RetryPolicy(2, Backoff.DEFAULT, RetryAfterPolicy.DEFAULT);

  /** No retries of the same target (fallbacks still happen). */
  public static final RetryPolicy NONE = new RetryPolicy(0, Backoff.DEFAULT, RetryAfterPolicy.DEFAULT);

  public RetryPolicy {
    if (maxRetries < 0) throw new IllegalArgumentException("max-retries must not be negative, was " + maxRetries);
    Objects.requireNonNull(backoff, "backoff");
    Objects.requireNonNull(retryAfter, "retryAfter");
  }
}
