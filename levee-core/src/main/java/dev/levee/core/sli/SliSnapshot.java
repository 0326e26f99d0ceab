package dev.levee.core.sli;

/**
 * What a {@link SlidingWindow} saw over its window.
 *
 * @param windowSeconds the span covered, in seconds
 * @param successes answered calls
 * @param serverErrors calls failed by the target (5xx, 529, timeouts, resets)
 * @param rateLimited calls answered 429
 * @param clientErrors calls failed by the client's own mistake (not in the rates below)
 * @param p50Millis median latency of successful calls, ms (0 when none)
 * @param p95Millis 95th percentile latency of successful calls, ms (0 when none)
 * @param p99Millis 99th percentile latency of successful calls, ms (0 when none)
 */
public record SliSnapshot(
    double windowSeconds,
    long successes,
    long serverErrors,
    long rateLimited,
    long clientErrors,
    long p50Millis,
    long p95Millis,
    long p99Millis) {

  /** Calls that say something about the target: everything but client errors. */
  public long total() {
    return successes + serverErrors + rateLimited;
  }

  /** Share of {@link #total()} that succeeded; 1 when there were no calls. */
  public double successRate() {
    return total() == 0 ? 1.0 : (double) successes / total();
  }

  /** Share of {@link #total()} that failed on the target's side (5xx, 529, timeouts). */
  public double serverErrorRate() {
    return total() == 0 ? 0.0 : (double) serverErrors / total();
  }

  /** Share of {@link #total()} answered 429. */
  public double rateLimitedRate() {
    return total() == 0 ? 0.0 : (double) rateLimited / total();
  }

  /** Calls per minute, all outcomes, scaled from the window. */
  public double perMinute() {
    return windowSeconds <= 0 ? 0 : (total() + clientErrors) * 60.0 / windowSeconds;
  }
}
