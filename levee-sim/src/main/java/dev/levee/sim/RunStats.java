package dev.levee.sim;

/**
 * The totals of one simulation run.
 *
 * @param requests requests counted (those after the warm-up)
 * @param calls upstream calls made (first attempts and retries that reached the upstream)
 * @param retries upstream calls made for an attempt after a request's first
 * @param successes requests that ended with a successful call
 * @param failedCalls upstream calls that failed
 * @param exhausted requests lost because their last allowed attempt failed
 * @param denied requests lost because the budget or retry throttle refused a retry
 * @param rejectedLocally requests lost because the breaker or adaptive throttle refused an attempt
 * @param latency time from arrival to success of the successful requests
 * @param timeline per-second counts, or null when not kept
 */
public record RunStats(
    long requests,
    long calls,
    long retries,
    long successes,
    long failedCalls,
    long exhausted,
    long denied,
    long rejectedLocally,
    LatencyHistogram latency,
    Timeline timeline) {

  /** Requests that did not succeed. */
  public long lost() {
    return exhausted + denied + rejectedLocally;
  }

  /** Upstream calls per request. */
  public double amplification() {
    return (double) calls / requests;
  }

  /** The fraction of requests lost, in [0, 1]. */
  public double loss() {
    return (double) lost() / requests;
  }
}
