package dev.levee.gateway.cluster;

/**
 * Decides when failed Redis commands mean "Redis is away" rather than "one command was slow": a
 * run of at least {@code minFailures} failures with no success in between, lasting at least
 * {@code span} from its first failure to its latest.
 *
 * <p>Why a span: on a loaded host one stall (a GC pause, a starved event loop) times out every
 * command in flight at the same moment, a burst of failures that says nothing about Redis, and the
 * next command succeeds. A Redis that is down or slower than the timeout keeps failing, and its
 * failures spread over time: sequential commands each take the full timeout, so with {@code span}
 * equal to the command timeout the run trips after about two timeouts. Thread-safe.
 */
final class FailureRun {

  private final int minFailures;
  private final long spanNanos;
  private int failures; // guarded by this
  private long firstAt; // ticker nanos of the run's first failure, guarded by this

  /**
   * @param minFailures failures in a row needed, at least 1
   * @param spanNanos time from the run's first failure to its latest, in nanoseconds, at least 0
   */
  FailureRun(int minFailures, long spanNanos) {
    if (minFailures < 1 || spanNanos < 0) {
      throw new IllegalArgumentException("need minFailures >= 1 and spanNanos >= 0, were " + minFailures + ", " + spanNanos);
    }
    this.minFailures = minFailures;
    this.spanNanos = spanNanos;
  }

  /** A command succeeded: the run is over. */
  synchronized void succeeded() {
    failures = 0;
  }

  /**
   * A command failed at {@code now} (ticker nanos).
   *
   * @return whether the run now says Redis is away
   */
  synchronized boolean failed(long now) {
    if (failures == 0) {
      firstAt = now;
    }
    failures++;
    return failures >= minFailures && now - firstAt >= spanNanos;
  }
}
