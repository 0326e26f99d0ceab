package dev.levee.emulator;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * The attempt log: every {@code /v1} request since the last reset, oldest first, at most {@link
 * #CAPACITY} (the oldest are dropped beyond). Thread-safe; waiters are woken on every change.
 */
final class RequestLog {

  /** The most entries kept. */
  static final int CAPACITY = 10_000;

  private final Deque<AttemptRecord> records = new ArrayDeque<>();

  synchronized void add(AttemptRecord record) {
    records.addLast(record);
    if (records.size() > CAPACITY) {
      records.removeFirst();
    }
    notifyAll();
  }

  synchronized void changed() {
    notifyAll();
  }

  synchronized void clear() {
    records.clear();
    notifyAll();
  }

  synchronized List<LogEntry> snapshot() {
    return records.stream().map(AttemptRecord::snapshot).toList();
  }

  /** Waits until {@code condition} holds for a snapshot and returns that snapshot. */
  List<LogEntry> await(Predicate<? super List<LogEntry>> condition, Duration timeout)
      throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (this) {
      while (true) {
        List<LogEntry> entries = snapshot();
        if (condition.test(entries)) {
          return entries;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new TimeoutException("the emulator log did not reach the expected state within " + timeout
              + "; it holds " + entries);
        }
        wait(Math.max(1, left / 1_000_000));
      }
    }
  }
}
