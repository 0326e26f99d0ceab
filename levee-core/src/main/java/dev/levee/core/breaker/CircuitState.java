package dev.levee.core.breaker;

/** The three states of a {@link CircuitBreaker}. */
public enum CircuitState {
  /** Calls flow; failures are counted in a sliding window. */
  CLOSED,
  /** Calls are rejected at once until the open period ends. */
  OPEN,
  /** A limited number of trial calls probe whether the target has recovered. */
  HALF_OPEN
}
