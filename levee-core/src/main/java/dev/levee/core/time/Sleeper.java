package dev.levee.core.time;

import java.time.Duration;

/**
 * Waits for a duration: the only way Levee's policies pause (backoff, retry-after).
 *
 * <p>{@link #system()} parks the calling (virtual) thread; a {@link ManualClock} advances its
 * virtual time instead, so tests never sleep. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Sleeper {

  /**
   * Waits for {@code duration}; returns at once when it is zero or negative.
   *
   * @throws InterruptedException if the waiting thread is interrupted (the request was cancelled)
   */
  void sleep(Duration duration) throws InterruptedException;

  /** Real waiting with {@link Thread#sleep(Duration)}. */
  static Sleeper system() {
    return d -> {
      if (d.isPositive()) {
        Thread.sleep(d);
      }
    };
  }
}
