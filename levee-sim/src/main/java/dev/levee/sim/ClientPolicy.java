package dev.levee.sim;

/**
 * What the simulated client does around each upstream call: admit it, learn its outcome, decide
 * whether a failure is retried and how long to wait. {@link CorePolicy} implements it with
 * levee-core's own classes.
 *
 * <p>The simulator calls, for each attempt, {@link #admit(int)}, then (if admitted) {@link
 * #onResponse(Object, boolean)} when the answer arrives, then for a failure with attempts left
 * {@link #mayRetry()} and, if that says yes, {@link #retryDelaySeconds(int)}. Not thread-safe;
 * one run owns one policy.
 */
public interface ClientPolicy {

  /**
   * Asks to make attempt number {@code attempt} (0 for a request's first call).
   *
   * @return a ticket to hand back to {@link #onResponse}, or {@code null} when the attempt is
   *     rejected locally (breaker open, client-side throttling) and the request fails
   */
  Object admit(int attempt);

  /** The attempt admitted with {@code ticket} was answered. */
  void onResponse(Object ticket, boolean success);

  /** A failed attempt could be retried: may it be? Spends whatever a retry costs the policy. */
  boolean mayRetry();

  /** The wait before retry number {@code retry} (0 for the first retry), in seconds; may draw. */
  double retryDelaySeconds(int retry);

  /**
   * The policy's guard level for charts, as a fraction of its maximum in {@code [0, 1]} (budget or
   * throttle tokens, admit probability, breaker closed = 1), or NaN when it has none.
   */
  double guard();

  /** The guard's meaning, e.g. {@code "budget tokens / 100"}; empty when there is no guard. */
  String guardName();
}
