package dev.levee.anthropic.time;

import dev.levee.core.time.Scheduler;
import dev.levee.core.time.Sleeper;
import dev.levee.core.time.Ticker;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Real time for the policies of levee-core, which never read the clock, sleep or start timers
 * themselves: whoever runs them in production passes these, and tests and the simulator pass a
 * {@link dev.levee.core.time.ManualClock}.
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

  /**
   * Real timers: one daemon thread ({@code levee-timer}) for the whole process, created on first
   * use and living as long as the process, serving every watchdog and periodic evaluation. Tasks
   * must be short and must not block.
   */
  public static Scheduler scheduler() {
    return Timers.SCHEDULER;
  }

  private static final class Timers {
    static final Scheduler SCHEDULER = of(executor());

    /**
     * A cancelled task leaves the queue at once: most timers (attempt watchdogs, disconnect
     * watches) are cancelled long before they are due, and would otherwise stay queued — and wake
     * the timer thread — until then.
     */
    private static ScheduledExecutorService executor() {
      ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "levee-timer");
        t.setDaemon(true);
        return t;
      });
      executor.setRemoveOnCancelPolicy(true);
      return executor;
    }

    private static Scheduler of(ScheduledExecutorService executor) {
      return (delay, task) -> {
        ScheduledFuture<?> future = executor.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
      };
    }
  }
}
