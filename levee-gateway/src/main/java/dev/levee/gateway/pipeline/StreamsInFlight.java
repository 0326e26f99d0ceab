package dev.levee.gateway.pipeline;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the stream requests in flight and says which of them run their stages 4 to 7 on a
 * virtual thread of their own ({@link MessagesHandler}). A thread of their own keeps the frozen
 * stack of a stream waiting on its upstream small (~4.3 KiB rather than ~7.9 KiB on Jetty's thread,
 * session 5), which counts when thousands wait at once; it costs a hand-off to another carrier
 * thread, ~35 µs more to the first delta at one connection on 2 cores (session 6). So a stream
 * takes its own thread only while more than {@link #SHARED_UP_TO} streams are in flight: the few
 * that run on Jetty's thread hold at most ~{@value #SHARED_UP_TO} × 3.6 KiB more. Thread-safe.
 */
final class StreamsInFlight {

  /** Streams in flight (this one included) up to which a stream runs on Jetty's thread. */
  static final int SHARED_UP_TO = 64;

  private final AtomicInteger inFlight = new AtomicInteger();

  /**
   * Counts a stream in; call {@link #exit()} once when it ends, whichever thread it ran on.
   *
   * @return whether it should run on a thread of its own
   */
  boolean enter() {
    return inFlight.incrementAndGet() > SHARED_UP_TO;
  }

  /** Counts a stream out. */
  void exit() {
    inFlight.decrementAndGet();
  }
}
