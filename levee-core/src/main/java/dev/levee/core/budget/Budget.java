package dev.levee.core.budget;

/**
 * What the fallback chain needs of a retry budget: spend a token for a retry, credit a success.
 * {@link RetryBudget} is the local one; a gateway replica may hand the chain one shared with other
 * replicas instead, so the chain does not know where the tokens live. The chain holds one per
 * target ({@link dev.levee.core.chain.RetryBudgets}).
 */
public interface Budget {

  /** Spends one token for a retry; returns false (and spends nothing) when fewer than one remain. */
  boolean tryAcquire();

  /** Records a successful call (credits {@code ratio} tokens). */
  void onSuccess();

  /** Tokens left (for reports; may cost a round trip for a shared budget). */
  double remaining();

  /** The bucket's capacity, in tokens. */
  double max();

  /**
   * Calls this budget refused since it was made, in this process (for reports): retries, hedges and
   * stream recoveries, and fallbacks when one bucket serves every target.
   */
  long denied();
}
