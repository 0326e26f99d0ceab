package dev.levee.anthropic.time;

import dev.levee.core.time.Sleeper;
import dev.levee.core.time.Ticker;

/**
 * Real time for the policies of levee-core, which never read the clock or sleep themselves:
 * whoever runs them in production passes these, and tests and the simulator pass a {@link
 * dev.levee.core.time.ManualClock}.
 */
public final class SystemClock {

  private SystemClock() {}

  /** The JVM's monotonic clock ({@link System#nanoTime()}). */
  public static Ticker ticker() {
    return System::nanoTime;
  }

  /** Real waiting: parks the calling (virtual) thread with {@link Thread#sleep(java.time.Duration)}. */
  public static Sleeper sleeper() {
    return d -> {
      if (d.isPositive()) {
        Thread.sleep(d);
      }
    };
  }
}
