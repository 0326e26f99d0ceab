package dev.levee.core.time;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fake clock for tests and simulations: a {@link Ticker} that moves only when told to, and a
 * {@link Sleeper} whose {@code sleep} advances that same time instead of waiting.
 *
 * <p>Thread-safe. Starts at an arbitrary non-zero reading so that code does not accidentally
 * depend on time starting at zero.
 */
public final class ManualClock implements Ticker, Sleeper {

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @Override
  public long nanos() {
    return nanos.get();
  }

  /** Moves time forward by {@code duration}; a negative duration is refused. */
  public ManualClock advance(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("time cannot go backwards: " + duration);
    }
    nanos.addAndGet(duration.toNanos());
    return this;
  }

  /** Moves time forward by {@code millis} milliseconds. */
  public ManualClock advanceMillis(long millis) {
    return advance(Duration.ofMillis(millis));
  }

  /** Advances time by {@code duration} at once, as if the caller had waited that long. */
  @Override
  public void sleep(Duration duration) {
    if (duration.isPositive()) {
      advance(duration);
    }
  }
}
