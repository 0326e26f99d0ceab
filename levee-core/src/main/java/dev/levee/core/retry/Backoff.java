package dev.levee.core.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with full jitter.
 *
 * <p>The wait before retry {@code n} (0 for the first retry) is {@code U(0, min(maxDelay,
 * baseDelay · 2^n))} (full jitter, as in the AWS Architecture Blog's "Exponential Backoff And
 * Jitter"). After an overload ({@code 529 overloaded_error}) the wait is wider and never near
 * zero: {@code min(maxDelay, 2 · baseDelay · 2^n · (1 + U(0,1)))}.
 *
 * @param baseDelay the first retry's ceiling (default 500 ms)
 * @param maxDelay the cap on any wait (default 8 s)
 */
public record Backoff(Duration baseDelay, Duration maxDelay) {

  /** 500 ms base, 8 s cap. */
  public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(8));

  public Backoff {
    Objects.requireNonNull(baseDelay, "baseDelay");
    Objects.requireNonNull(maxDelay, "maxDelay");
    if (baseDelay.isNegative() || maxDelay.isNegative()) {
      throw new IllegalArgumentException("delays must not be negative");
    }
  }

  /**
   * The wait before retry number {@code retry} (0-based).
   *
   * @param overloaded whether the failure was an overload, which waits wider
   * @param random the source of jitter (one draw)
   */
  public Duration delay(int retry, boolean overloaded, RandomGenerator random) {
    double ceiling = Math.min(maxNanos(), baseDelay.toNanos() * Math.pow(2, Math.min(retry, 62)));
    double nanos = overloaded
        ? Math.min(maxNanos(), 2 * ceiling * (1 + random.nextDouble()))
        : ceiling * random.nextDouble();
    return Duration.ofNanos((long) nanos);
  }

  private double maxNanos() {
    return maxDelay.toNanos();
  }
}
