package dev.levee.gateway.pipeline;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The client requests between the start of {@link MessagesHandler#handle} and the end of their
 * stage 7, for a shutdown to wait on: the server's drain ends with the exchanges, and a stream's
 * exchange completes before its stage 6 ({@link MessagesHandler}), whose bookkeeping (cache
 * write-back, SLO, metrics, trace, access record) would otherwise run into stores already closed.
 * Counting costs an atomic increment and decrement; the lock is taken only while someone waits.
 * Thread-safe.
 */
final class RequestsInFlight {

  private final AtomicInteger count = new AtomicInteger();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition none = lock.newCondition();
  private volatile boolean awaited;

  void enter() {
    count.incrementAndGet();
  }

  void exit() {
    if (count.decrementAndGet() == 0 && awaited) { // awaited is read after the count is written: no lost signal
      lock.lock();
      try {
        none.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * Waits until no request is in flight, for at most {@code within}.
   *
   * @return whether none is; false when {@code within} ran out first
   * @throws InterruptedException when interrupted while waiting
   */
  boolean awaitNone(Duration within) throws InterruptedException {
    long nanos = within.toNanos();
    lock.lock();
    try {
      awaited = true; // written before the count is read: an exit that reaches zero after this signals
      while (count.get() > 0) {
        if (nanos <= 0) {
          return false;
        }
        nanos = none.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Requests in flight now (tests). */
  int count() {
    return count.get();
  }
}
