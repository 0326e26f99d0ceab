package dev.levee.gateway.pipeline;

import dev.levee.anthropic.upstream.Watchdog;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Starts the disconnect watch of each {@link CancellationScope} still open {@link #WATCH_AFTER}
 * after it opened. A request adds itself to a queue (no timer of its own) and, as it arrives,
 * sweeps the queue's head: it drops the scopes that closed and starts the watches that are due.
 * Under traffic the arrivals do all the sweeping; one coarse timer sweeps every {@link
 * #SWEEP_EVERY} while scopes wait, for the requests that arrive in a quiet spell. So a watch
 * starts between {@code WATCH_AFTER} and {@code WATCH_AFTER + SWEEP_EVERY} after its request
 * opened, and one request at a time (each a fraction of a millisecond) wakes the timer thread twenty
 * times a second instead of once per {@code WATCH_AFTER} (the wake-ups that lengthen the c=1 tail:
 * docs/benchmarks.md, session 5). Thread-safe.
 */
final class LateWatches {

  /**
   * How long a request runs before its connection may be watched for the client leaving (20 ms).
   * Not less: on a saturated box (c=64 on two cores) a request that takes 100 µs of CPU still
   * spends several milliseconds in the run queue, and at 5 ms a large share of such requests
   * started a watch — a read interest, a selector wake-up and its undoing each, ~0.2 context
   * switches and ~1 system call per request more (docs/benchmarks.md, session 8) — just when CPU
   * was scarcest. A client that leaves costs at most this much more upstream work.
   */
  static final Duration WATCH_AFTER = Duration.ofMillis(20);

  /**
   * How often the timer sweeps while scopes wait (50 ms); arrivals sweep in between. With {@link
   * #WATCH_AFTER} a watch starts within 70 ms of its request opening even with no other traffic,
   * so a client that leaves during a stream's recovery backoff is noticed within 100 ms
   * ({@code RecoveryBackoffDisconnectRegressionTest}).
   */
  static final Duration SWEEP_EVERY = Duration.ofMillis(50);

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
  private final AtomicBoolean sweeping = new AtomicBoolean(); // one sweep at a time; others skip

  LateWatches(Watchdog timers, Ticker ticker) {
    this.timers = timers;
    this.ticker = ticker;
  }

  /** The time to stamp a scope with as it opens. */
  long now() {
    return ticker.nanos();
  }

  /**
   * Watches {@code scope} from {@link #WATCH_AFTER} after its opening on, unless it closes first;
   * sweeps the scopes opened before it.
   */
  void add(Waiting scope) {
    sweep();
    waiting.add(scope);
    schedule();
  }

  private void schedule() {
    if (scheduled.compareAndSet(false, true)) {
      timers.start(SWEEP_EVERY, this::timed);
    }
  }

  private void timed() {
    scheduled.set(false);
    sweep();
    if (!waiting.isEmpty()) { // a scope added during the sweep is never left waiting
      schedule();
    }
  }

  private void sweep() {
    if (!sweeping.compareAndSet(false, true)) {
      return; // the thread sweeping now does it
    }
    try {
      long now = ticker.nanos();
      Waiting scope;
      while ((scope = waiting.peek()) != null) {
        boolean due = now - scope.openedAt() >= WATCH_AFTER_NANOS;
        if (!due && !scope.closed()) {
          break;
        }
        waiting.poll();
        if (due) {
          scope.watch(); // nothing when it has closed
        }
      }
    } finally {
      sweeping.set(false);
    }
  }
}
