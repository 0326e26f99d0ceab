package dev.levee.core.time;

/**
 * A source of monotonic time in nanoseconds, the only way time enters Levee's policies.
 *
 * <p>Production code uses {@link #system()}; tests and the simulator pass a {@link ManualClock}
 * so that the same policy classes run on virtual time. Values are only meaningful relative to
 * each other (like {@link System#nanoTime()}). Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Ticker {

  /** Returns the current reading in nanoseconds. */
  long nanos();

  /** The JVM's monotonic clock ({@link System#nanoTime()}). */
  static Ticker system() {
    return System::nanoTime;
  }
}
