package dev.levee.sim;

/**
 * The upstream as the simulator sees it: it answers each call made at a virtual time with
 * success or a retryable failure (a 5xx or a 529 {@code overloaded_error}).
 *
 * <p>Calls arrive in non-decreasing time order. Implementations are stateful and owned by one
 * run; they need not be thread-safe.
 */
public interface Upstream {

  /**
   * Answers one call.
   *
   * @param time when the call reaches the upstream, in seconds since the run began
   * @return true when the call succeeds, false when it fails and may be retried
   */
  boolean call(double time);
}
