package dev.levee.core.chain;

import dev.levee.core.retry.RetryPolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link FallbackChain}.
 *
 * @param retry per-target retries, backoff and retry-after handling
 * @param attemptTimeout the most one call may take (default 20 s); the deadline may cut it shorter
 * @param minAttemptTime an attempt is not started with less than this left before the deadline
 *     (default 100 ms)
 */
public record ChainPolicy(RetryPolicy retry, Duration attemptTimeout, Duration minAttemptTime) {

  public static final ChainPolicy DEFAULT =
      new ChainPolicy(RetryPolicy.DEFAULT, Duration.ofSeconds(20), Duration.ofMillis(100));

  public ChainPolicy {
    Objects.requireNonNull(retry, "retry");
    if (!attemptTimeout.isPositive()) throw new IllegalArgumentException("attempt-timeout must be positive");
    if (minAttemptTime.isNegative()) throw new IllegalArgumentException("min-attempt-time must not be negative");
  }
}
