package dev.levee.gateway.pipeline;

import dev.levee.anthropic.upstream.Watchdog;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Starts the disconnect watch of each {@link CancellationScope} still open {@link #WATCH_AFTER}
 * after it opened, with one timer for all of them: a request adds itself to a queue (no timer of
 * its own, no wake-up of the timer thread), and one sweep, due when the oldest waiting scope is,
 * starts the watches that are due and drops the scopes that closed. At most one sweep is
 * scheduled at a time. Thread-safe.
 */
final class LateWatches {

  /** How long a request runs before its connection is watched for the client leaving. */
  static final Duration WATCH_AFTER = Duration.ofMillis(5);

  private static final long WATCH_AFTER_NANOS = WATCH_AFTER.toNanos();

  /** What waits for its watch: a {@link CancellationScope}. */
  interface Waiting {
    /** Ticker reading when it opened ({@link #now()}). */
    long openedAt();

    boolean closed();

    /** Starts the watch; does nothing once closed. */
    void watch();
  }

  private final Watchdog timers;
  private final Ticker ticker;
  private final Queue<Waiting> waiting = new ConcurrentLinkedQueue<>(); // in the order they opened
  private final AtomicBoolean scheduled = new AtomicBoolean();

  LateWatches(Watchdog timers, Ticker ticker) {
    this.timers = timers;
    this.ticker = ticker;
  }

  /** The time to stamp a scope with as it opens. */
  long now() {
    return ticker.nanos();
  }

  /** Watches {@code scope} from {@link #WATCH_AFTER} after its opening on, unless it closes first. */
  void add(Waiting scope) {
    waiting.add(scope);
    if (scheduled.compareAndSet(false, true)) {
      timers.start(WATCH_AFTER, this::sweep);
    }
  }

  private void sweep() {
    long next = WATCH_AFTER_NANOS;
    long now = ticker.nanos();
    Waiting scope;
    while ((scope = waiting.peek()) != null) {
      long left = scope.openedAt() + WATCH_AFTER_NANOS - now;
      if (left > 0 && !scope.closed()) {
        next = left;
        break;
      }
      waiting.poll();
      if (left <= 0) {
        scope.watch(); // nothing when it has closed
      }
    }
    scheduled.set(false);
    if (!waiting.isEmpty() && scheduled.compareAndSet(false, true)) { // a scope added during the sweep is never left waiting
      timers.start(Duration.ofNanos(next), this::sweep);
    }
  }
}
