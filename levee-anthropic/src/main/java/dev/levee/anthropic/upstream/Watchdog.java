package dev.levee.anthropic.upstream;

import dev.levee.core.time.Scheduler;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

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
 *
 * <p>A limit is the upstream's to keep, so a timer given a probe ({@link #start(Duration, Runnable,
 * BooleanSupplier)}) does not fire while what it waits for is in Levee's hands — bytes the upstream
 * sent wait unread, or the reader is not waiting on the upstream: the upstream was in time, and the
 * reader that has not taken them is Levee's (a
 * cold gateway on a starved box left virtual threads waiting 6–9 s for a carrier while the
 * answers sat in their sockets; the timers, on their own platform thread, closed those calls as
 * timeouts, and a healthy target's circuit opened). Such a timer is looked at again every {@link
 * #RECHECK} and fires once Levee has taken the bytes and the upstream still owes what the limit
 * waits for, or at the latest {@link #MAX_LATE_READER} past its limit.
 */
public final class Watchdog {

  /** How soon a timer whose limit ran out while its bytes waited unread looks again: 10 ms. */
  static final Duration RECHECK = Duration.ofMillis(10);

  /**
   * The longest a timer waits past its limit for Levee to read bytes that arrived: 30 s. Past it
   * Levee is not late but stuck, and the timer fires so that nothing waits forever.
   */
  static final Duration MAX_LATE_READER = Duration.ofSeconds(30);

  private static final BooleanSupplier NOTHING_UNREAD = () -> false;

  private final Ticker ticker;
  private final Scheduler scheduler;
  private final LongAdder lateReaders = new LongAdder();
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
    return start(limit, onExpiry, NOTHING_UNREAD);
  }

  /**
   * Starts a timer that runs {@code onExpiry} once {@code limit} passes without {@link
   * Timer#progress()} while the upstream owes what the limit waits for.
   *
   * @param unread whether what the limit waits for is in Levee's hands rather than the upstream's:
   *     bytes arrived that Levee has not read, or the reader is not waiting on the upstream ({@link
   *     UpstreamResponse#arrivedUnread()}); asked on the timer's thread once the limit has passed,
   *     every {@link #RECHECK} while it says true: short, non-blocking
   */
  public Timer start(Duration limit, Runnable onExpiry, BooleanSupplier unread) {
    Timer timer = new Timer(onExpiry, Objects.requireNonNull(unread, "unread"));
    timer.rearm(limit);
    return timer;
  }

  /** How many timers found their limit run out while what they waited for was in Levee's hands, and waited for Levee. */
  public long lateReaders() {
    return lateReaders.sum();
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
      } else if (timer.readerIsLate(-left)) {
        next = Math.min(next, RECHECK.toNanos());
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
    private final BooleanSupplier unread;
    private boolean waitedForReader; // only on the check's thread
    private volatile long limitNanos;
    private volatile long lastProgress;
    private boolean stopped; // guarded by this
    private volatile boolean fired; // written under this

    private Timer(Runnable onExpiry, BooleanSupplier unread) {
      this.onExpiry = onExpiry;
      this.unread = unread;
    }

    /** Whether to wait for Levee to read what arrived, {@code overdueNanos} past the limit. */
    private boolean readerIsLate(long overdueNanos) {
      if (overdueNanos >= MAX_LATE_READER.toNanos() || !unread.getAsBoolean()) {
        return false;
      }
      if (!waitedForReader) {
        waitedForReader = true;
        lateReaders.increment();
      }
      return true;
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
