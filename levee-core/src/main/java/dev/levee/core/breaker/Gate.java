package dev.levee.core.breaker;

import java.time.Duration;

/**
 * What the fallback chain asks of a target's breaker before and after a call. {@link
 * CircuitBreaker} is the local one; a gateway replica may answer from a breaker shared with other
 * replicas instead (its permits are {@link Permit#external external}), so the chain does not know
 * where the state lives.
 */
public interface Gate {

  /** Asks to make one call: {@link CircuitBreaker.Admitted} with a permit to settle once, or {@link CircuitBreaker.Rejected}. */
  CircuitBreaker.Verdict tryAcquire();

  /** The circuit's state now. */
  CircuitState state();

  /** Time left until a trial may be admitted; zero unless OPEN. */
  Duration openRemaining();

  /**
   * Whether the circuit is HALF_OPEN with every trial slot taken by a call still in flight: any
   * other call is refused until a trial settles. Read by whoever must not spend calls that cannot
   * be admitted (the gateway's queue holds its jobs meanwhile).
   */
  boolean awaitingTrial();
}
