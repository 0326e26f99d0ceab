package dev.levee.anthropic.upstream;

import dev.levee.core.time.Scheduler;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Iterator;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The deadlines of upstream calls waiting for their response head, enforced by one sweep for all
 * of them instead of a timed read each. A virtual thread's timed read parks with a timeout, and
 * every such park wakes the JDK's delay-scheduler thread twice (to schedule the timeout and to
 * cancel it): two context switches per call, most of them on the critical path at low load.
 *
 * <p>A call adds itself to a queue (no timer of its own, no wake-up of the timer thread); while
 * anything waits, one sweep runs every {@link #GRAIN} (or sooner when the nearest deadline is
 * sooner), runs the expiry action of each wait whose deadline has passed and drops the waits that
 * ended. A deadline fires between its instant and one {@link #GRAIN} later. {@link Wait#end()} and
 * the expiry race safely: exactly one of them wins, and the loser learns it. Thread-safe.
 */
final class HeadDeadlines {

  /** How late a deadline may fire, at most: the sweep's period while calls wait. */
  static final Duration GRAIN = Duration.ofMillis(10);

  private static final long GRAIN_NANOS = GRAIN.toNanos();

  private final Ticker ticker;
  private final Scheduler scheduler;
  private final Queue<Wait> waiting = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();

  HeadDeadlines(Ticker ticker, Scheduler scheduler) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
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
    Wait wait = new Wait(deadlineNanos, onExpiry);
    waiting.add(wait);
    if (scheduled.compareAndSet(false, true)) {
      scheduler.schedule(Duration.ofNanos(Math.min(GRAIN_NANOS, deadlineNanos - now())), this::sweep);
    }
    return wait;
  }

  /** Waits not yet swept away (tests). */
  int size() {
    return waiting.size();
  }

  private void sweep() {
    long now = now();
    long next = GRAIN_NANOS;
    for (Iterator<Wait> i = waiting.iterator(); i.hasNext(); ) {
      Wait wait = i.next();
      long left = wait.deadline - now;
      if (wait.state.get() != Wait.WAITING) {
        i.remove();
      } else if (left <= 0) {
        i.remove();
        wait.expire();
      } else {
        next = Math.min(next, left);
      }
    }
    scheduled.set(false);
    if (!waiting.isEmpty() && scheduled.compareAndSet(false, true)) { // a wait added during the sweep is never left alone
      scheduler.schedule(Duration.ofNanos(next), this::sweep);
    }
  }

  /** One call's wait for its head. */
  static final class Wait {
    private static final int WAITING = 0;
    private static final int ENDED = 1;
    private static final int EXPIRED = 2;

    private final long deadline;
    private final Runnable onExpiry;
    private final AtomicInteger state = new AtomicInteger(WAITING);

    private Wait(long deadline, Runnable onExpiry) {
      this.deadline = deadline;
      this.onExpiry = onExpiry;
    }

    /**
     * Ends the wait (the head arrived, or the call failed).
     *
     * @return false when the deadline had already fired: its action ran or is running
     */
    boolean end() {
      return state.compareAndSet(WAITING, ENDED) || state.get() == ENDED;
    }

    /** Whether the deadline fired. */
    boolean expired() {
      return state.get() == EXPIRED;
    }

    private void expire() {
      if (state.compareAndSet(WAITING, EXPIRED)) {
        onExpiry.run();
      }
    }
  }
}
