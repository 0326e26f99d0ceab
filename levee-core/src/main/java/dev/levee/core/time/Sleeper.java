package dev.levee.core.time;

import java.time.Duration;

/**
 * Waits for a duration: the only way Levee's policies pause (backoff, retry-after).
 *
 * <p>levee-core never sleeps itself: production passes a sleeper that parks the calling (virtual)
 * thread ({@code dev.levee.anthropic.time.SystemClock}); a {@link ManualClock} advances its virtual
 * time instead, so tests never sleep. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Sleeper {

  /**
   * Waits for {@code duration}; returns at once when it is zero or negative.
   *
   * @throws InterruptedException if the waiting thread is interrupted (the request was cancelled)
   */
  void sleep(Duration duration) throws InterruptedException;
}
