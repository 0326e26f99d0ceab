package dev.levee.anthropic.upstream;

import dev.levee.core.time.Scheduler;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Fires an action when a call makes no progress for too long: the attempt timeout of a JSON
 * body, the time-to-first-token limit and the idle timeout of a stream.
 *
 * <p>A {@link Timer} holds one limit at a time. {@link Timer#progress()} only records a
 * timestamp (no rescheduling per event); the scheduled check re-arms itself for the time still
 * left. Time and timers come from the injected {@link Ticker} and {@link Scheduler} (in production
 * {@code SystemClock}; in tests a {@code ManualClock}, so a stall fires when virtual time passes
 * the limit). Thread-safe.
 */
public final class Watchdog {

  private final Ticker ticker;
  private final Scheduler scheduler;

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

  /** One running limit. */
  public final class Timer implements AutoCloseable {
    private final Runnable onExpiry;
    private final AtomicBoolean fired = new AtomicBoolean();
    private volatile long limitNanos;
    private volatile long lastProgress;
    private volatile boolean stopped;
    private Scheduler.Scheduled check;

    private Timer(Runnable onExpiry) {
      this.onExpiry = onExpiry;
    }

    /** Records progress: the limit counts again from now. */
    public void progress() {
      lastProgress = ticker.nanos();
    }

    /** Replaces the limit (e.g. from time-to-first-token to stream idle) and counts from now. */
    public synchronized void rearm(Duration limit) {
      limitNanos = Math.max(1, limit.toNanos());
      lastProgress = ticker.nanos();
      schedule(limitNanos);
    }

    /** Whether the limit was exceeded and the action ran. */
    public boolean fired() {
      return fired.get();
    }

    private synchronized void schedule(long delayNanos) {
      if (stopped) {
        return;
      }
      if (check != null) {
        check.cancel();
      }
      check = scheduler.schedule(Duration.ofNanos(delayNanos), this::check);
    }

    private void check() {
      if (stopped) {
        return;
      }
      long left = lastProgress + limitNanos - ticker.nanos();
      if (left > 0) {
        schedule(left);
      } else if (fired.compareAndSet(false, true)) {
        onExpiry.run();
      }
    }

    /** Stops the timer; the action will not run after this returns unless it already started. */
    @Override
    public synchronized void close() {
      stopped = true;
      if (check != null) {
        check.cancel();
      }
    }
  }
}
