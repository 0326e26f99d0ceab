package dev.levee.gateway.pipeline;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the stream requests in flight and says which of them run their stages 4 to 7 on a
 * virtual thread of their own ({@link MessagesHandler}), and when those let their thread go
 * between deltas ({@link #parkless()}).
 *
 * <p>A thread of their own keeps the frozen stack of a stream waiting on its upstream small
 * (~4.3 KiB rather than ~7.9 KiB on Jetty's thread, session 5), which counts when thousands wait
 * at once; it costs a hand-off to another carrier thread, ~35 µs more to the first delta at one
 * connection on 2 cores (session 6). So a stream takes its own thread only while more than {@link
 * #SHARED_UP_TO} streams are in flight: the few that run on Jetty's thread hold at most
 * ~{@value #SHARED_UP_TO} × 3.6 KiB more.
 *
 * <p>Beyond {@link #PARKLESS_ABOVE} streams in flight, a stream on its own thread waits for its
 * upstream's next bytes with no thread at all ({@link Relay.Waits}): the frozen stack of a parked
 * virtual thread was still the largest item of a waiting stream (7.3 KB of ~21.7 KB, issue 11,
 * session 6), and each resumed wait costs a hand-off through the selector thread and a fresh
 * thread, which only many streams are worth. Thread-safe.
 */
final class StreamsInFlight {

  /** Streams in flight (this one included) up to which a stream runs on Jetty's thread. */
  static final int SHARED_UP_TO = 64;

  /** Streams in flight above which a stream on its own thread lets it go while it waits. */
  static final int PARKLESS_ABOVE = 256;

  private static volatile int sharedUpTo = SHARED_UP_TO;
  private static volatile int parklessAbove = PARKLESS_ABOVE;

  private final AtomicInteger inFlight = new AtomicInteger();

  /**
   * Counts a stream in; call {@link #exit()} once when it ends, whichever thread it ran on.
   *
   * @return whether it should run on a thread of its own
   */
  boolean enter() {
    return inFlight.incrementAndGet() > sharedUpTo;
  }

  /** Whether a stream on its own thread should let it go while it waits for its upstream, now. */
  boolean parkless() {
    return inFlight.get() > parklessAbove;
  }

  /** Counts a stream out. */
  void exit() {
    inFlight.decrementAndGet();
  }

  /**
   * Tests: both thresholds for every handler of this JVM (0 and 0: every stream on a thread of its
   * own, waiting with none). {@link #restoreThresholds()} after.
   */
  static void setThresholds(int sharedUpTo, int parklessAbove) {
    StreamsInFlight.sharedUpTo = sharedUpTo;
    StreamsInFlight.parklessAbove = parklessAbove;
  }

  /** Tests: the thresholds back to {@link #SHARED_UP_TO} and {@link #PARKLESS_ABOVE}. */
  static void restoreThresholds() {
    setThresholds(SHARED_UP_TO, PARKLESS_ABOVE);
  }
}
