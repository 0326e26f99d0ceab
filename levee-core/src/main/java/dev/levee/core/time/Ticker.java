package dev.levee.core.time;

/**
 * A source of monotonic time in nanoseconds, the only way time enters Levee's policies.
 *
 * <p>levee-core never reads the clock itself: production passes the JVM's monotonic clock
 * ({@code dev.levee.anthropic.time.SystemClock}); tests and the simulator pass a {@link ManualClock}
 * so that the same policy classes run on virtual time. Values are only meaningful relative to
 * each other (like {@link System#nanoTime()}). Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Ticker {

  /** Returns the current reading in nanoseconds. */
  long nanos();
}
