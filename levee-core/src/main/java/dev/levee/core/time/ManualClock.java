package dev.levee.core.time;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Virtual time for tests and simulations: a {@link Ticker} that moves only when told to, a {@link
 * Sleeper} whose {@code sleep} advances that same time instead of waiting, and a {@link Scheduler}
 * whose tasks run, in order of their due time, on the thread that advances the time past it.
 *
 * <p>Thread-safe. Starts at an arbitrary non-zero reading so that code does not accidentally
 * depend on time starting at zero. A task that schedules another task due within the same advance
 * sees it run in that advance too.
 */
public final class ManualClock implements Ticker, Sleeper, Scheduler {

  private record Entry(long due, long seq, Runnable task, boolean[] cancelled) {}

  private final PriorityQueue<Entry> queue = new PriorityQueue<>(
      (a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
  private volatile long nanos = 1_000_000_000L; // read without the lock; written under it
  private long seq;
  private long goal; // the reading the advances so far have committed to

  @Override
  public long nanos() {
    return nanos;
  }

  /**
   * Moves time forward by {@code duration}, running every scheduled task that falls due on the way
   * (each with time set to its due reading); a negative duration is refused.
   */
  public ManualClock advance(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("time cannot go backwards: " + duration);
    }
    long target;
    synchronized (this) {
      goal = Math.max(goal, nanos) + duration.toNanos(); // concurrent advances add up, as they always have
      target = goal;
    }
    while (true) {
      Entry next;
      synchronized (this) {
        next = queue.peek();
        if (next == null || next.due - target > 0) {
          nanos = Math.max(nanos, target);
          return this;
        }
        queue.poll();
        nanos = Math.max(nanos, next.due);
        if (next.cancelled[0]) {
          continue;
        }
      }
      next.task.run();
    }
  }

  /** Moves time forward by {@code millis} milliseconds. */
  public ManualClock advanceMillis(long millis) {
    return advance(Duration.ofMillis(millis));
  }

  /** Advances time by {@code duration} at once, as if the caller had waited that long. */
  @Override
  public void sleep(Duration duration) {
    if (duration.isPositive()) {
      advance(duration);
    }
  }

  /** Queues {@code task} to run when time is advanced {@code delay} past now (a zero delay: at the next advance). */
  @Override
  public Scheduled schedule(Duration delay, Runnable task) {
    boolean[] cancelled = new boolean[1];
    synchronized (this) {
      queue.add(new Entry(nanos + Math.max(0, delay.toNanos()), seq++, task, cancelled));
    }
    return () -> {
      synchronized (this) {
        cancelled[0] = true;
      }
    };
  }

  /** Tasks scheduled and neither run nor cancelled yet. */
  public synchronized int pending() {
    List<Entry> live = new ArrayList<>(queue);
    live.removeIf(e -> e.cancelled[0]);
    return live.size();
  }
}
