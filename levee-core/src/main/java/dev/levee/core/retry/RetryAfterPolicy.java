package dev.levee.core.retry;

import java.time.Duration;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * How Levee honours an upstream's stated wait ({@code retry-after-ms}, {@code retry-after}).
 *
 * <p>The stated wait is honoured plus a small jitter of up to {@code jitter} of it (default 10%),
 * so that clients told the same time do not return in lockstep. A stated wait longer than {@code
 * maxRetryAfter} (default 60 s) is not waited out: the caller moves to the next target or fails
 * with that wait as its own {@code retry-after}.
 *
 * @param maxRetryAfter the longest stated wait Levee will sit out
 * @param jitter the extra fraction of the stated wait drawn uniformly, in [0, 1]
 */
public record RetryAfterPolicy(Duration maxRetryAfter, double jitter) {

  /** Waits of up to 60 s honoured, with up to 10% jitter. */
  public static final RetryAfterPolicy DEFAULT = new RetryAfterPolicy(Duration.ofSeconds(60), 0.10);

  public RetryAfterPolicy {
    if (maxRetryAfter.isNegative()) throw new IllegalArgumentException("max-retry-after must not be negative");
    if (!(jitter >= 0 && jitter <= 1)) throw new IllegalArgumentException("jitter must be in [0, 1], was " + jitter);
  }

  /**
   * The wait to sit out for a stated {@code retryAfter}, or empty when it is too long to wait.
   *
   * @param random the source of jitter (one draw)
   */
  public Optional<Duration> waitFor(Duration retryAfter, RandomGenerator random) {
    if (retryAfter.compareTo(maxRetryAfter) > 0) {
      return Optional.empty();
    }
    long stated = Math.max(0, retryAfter.toNanos());
    return Optional.of(Duration.ofNanos(stated + (long) (stated * jitter * random.nextDouble())));
  }
}
