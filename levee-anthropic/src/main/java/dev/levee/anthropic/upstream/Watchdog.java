package dev.levee.anthropic.upstream;

import dev.levee.core.time.Scheduler;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fires an action when a call makes no progress for too long: the attempt timeout of a JSON
 * body, the time-to-first-token limit and the idle timeout of a stream.
 *
 * <p>A {@link Timer} holds one limit at a time. All timers of a watchdog share one scheduled
 * check, due when the earliest of them is: starting a timer whose limit ends later than that
 * check, {@link Timer#progress()} and {@link Timer#close()} touch no scheduler (a JSON request
 * starts and closes a timer each, and rescheduling would wake the timer thread, a context switch
 * on the request path); the check fires the timers that ran out, then re-arms itself for the
 * earliest one still running. Time and timers come from the injected {@link Ticker} and {@link
 * Scheduler} (in production {@code SystemClock}; in tests a {@code ManualClock}, so a stall fires
 * when virtual time passes the limit). Thread-safe.
 */
public final class Watchdog {

  private final Ticker ticker;
  private final Scheduler scheduler;
  private final Set<Timer> running = ConcurrentHashMap.newKeySet();
  private Scheduler.Scheduled check; // guarded by this: the one pending check, or null
  private long checkAt; // guarded by this: its due ticker reading

  public Watchdog(Ticker ticker, Scheduler scheduler) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
  }

  /**
   * Starts a timer that runs {@code onExpiry} once {@code limit} passes without {@link
   * Timer#progress()}.
   */
  public Timer start(Duration limit, Runnable onExpiry) {
    Timer timer = new Timer(onExpiry);
    timer.rearm(limit);
    return timer;
  }

  /** Timers neither closed nor fired (tests). */
  int running() {
    return running.size();
  }

  /** Makes sure a check runs no later than ticker reading {@code due}. */
  private synchronized void checkBy(long due) {
    if (check != null && due - checkAt >= 0) {
      return;
    }
    if (check != null) {
      check.cancel();
    }
    checkAt = due;
    check = scheduler.schedule(Duration.ofNanos(due - ticker.nanos()), this::check);
  }

  private void check() {
    synchronized (this) {
      check = null; // a timer started from here on schedules its own check
    }
    long now = ticker.nanos();
    long next = Long.MAX_VALUE;
    for (Timer timer : running) {
      long left = timer.deadline() - now;
      if (left > 0) {
        next = Math.min(next, left);
      } else {
        running.remove(timer);
        if (timer.expire()) {
          timer.onExpiry.run();
        }
      }
    }
    if (next != Long.MAX_VALUE) {
      checkBy(now + next);
    }
  }

  /** One running limit. */
  public final class Timer implements AutoCloseable {
    private final Runnable onExpiry;
    private volatile long limitNanos;
    private volatile long lastProgress;
    private boolean stopped; // guarded by this
    private volatile boolean fired; // written under this

    private Timer(Runnable onExpiry) {
      this.onExpiry = onExpiry;
    }

    /** Records progress: the limit counts again from now. */
    public void progress() {
      lastProgress = ticker.nanos();
    }

    /** Replaces the limit (e.g. from time-to-first-token to stream idle) and counts from now. */
    public synchronized void rearm(Duration limit) {
      if (stopped || fired) {
        return;
      }
      limitNanos = Math.max(1, limit.toNanos());
      lastProgress = ticker.nanos();
      running.add(this);
      checkBy(deadline());
    }

    /** Whether the limit was exceeded and the action ran. */
    public boolean fired() {
      return fired;
    }

    private long deadline() {
      return lastProgress + limitNanos;
    }

    /** Whether the action is to run now: once, and never after {@link #close()}. */
    private synchronized boolean expire() {
      if (stopped || fired) {
        return false;
      }
      fired = true;
      return true;
    }

    /** Stops the timer; the action will not run after this returns unless it already started. */
    @Override
    public synchronized void close() {
      stopped = true;
      running.remove(this);
    }
  }
}
