package dev.levee.anthropic.upstream;

import dev.levee.core.time.Scheduler;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Objects;

/**
 * The deadlines of upstream calls waiting for their response head, enforced by timers of a
 * {@link Watchdog} of their own instead of a timed read each. A virtual thread's timed read parks
 * with a timeout, and every such park wakes the JDK's delay-scheduler thread twice (to schedule the
 * timeout and to cancel it): two context switches per call, most of them on the critical path at
 * low load. The watchdog's timers share one check, due when the earliest deadline is, so a call
 * that starts and ends its wait before then touches no timer at all. {@link Wait#end()} and the
 * expiry race safely: exactly one of them wins, and the loser learns it. Thread-safe.
 */
final class HeadDeadlines {

  private final Ticker ticker;
  private final Watchdog timers;

  HeadDeadlines(Ticker ticker, Scheduler scheduler) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.timers = new Watchdog(ticker, scheduler);
  }

  /** The ticker reading now (deadlines are given on it). */
  long now() {
    return ticker.nanos();
  }

  /**
   * Runs {@code onExpiry} (on the timer's thread; short, non-blocking) once the ticker passes
   * {@code deadlineNanos}, unless the returned wait ends first.
   */
  Wait start(long deadlineNanos, Runnable onExpiry) {
    return start(deadlineNanos, onExpiry, () -> false);
  }

  /**
   * As {@link #start(long, Runnable)}, but not while {@code unread} says the answer waits for Levee
   * to read it ({@link Watchdog#start(Duration, Runnable, java.util.function.BooleanSupplier)}).
   */
  Wait start(long deadlineNanos, Runnable onExpiry, java.util.function.BooleanSupplier unread) {
    return new Wait(timers.start(Duration.ofNanos(deadlineNanos - now()), onExpiry, unread));
  }

  /** Deadlines that passed while their answer waited for Levee to read it ({@link Watchdog#lateReaders()}). */
  long lateReaders() {
    return timers.lateReaders();
  }

  /** Waits neither ended nor fired (tests). */
  int size() {
    return timers.running();
  }

  /** One call's wait for its head. */
  static final class Wait {
    private final Watchdog.Timer timer;

    private Wait(Watchdog.Timer timer) {
      this.timer = timer;
    }

    /**
     * Ends the wait (the head arrived, or the call failed).
     *
     * @return false when the deadline had already fired: its action ran or is running
     */
    boolean end() {
      timer.close();
      return !timer.fired();
    }

    /** Whether the deadline fired. */
    boolean expired() {
      return timer.fired();
    }
  }
}
