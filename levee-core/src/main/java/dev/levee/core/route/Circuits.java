package dev.levee.core.route;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;

/** The circuit state of each target, as the router needs it. Implementations must be thread-safe. */
@FunctionalInterface
public interface Circuits {

  /** Every circuit is closed. */
  Circuits CLOSED = target -> CircuitState.CLOSED;

  /** The state of {@code target}'s circuit now. */
  CircuitState stateOf(Target target);

  /**
   * The states of {@code breakers}, where an OPEN circuit whose open period has passed reads
   * HALF_OPEN: it would admit a trial, so it is a candidate again (otherwise a circuit nobody
   * calls would stay OPEN forever in the router's eyes).
   */
  static Circuits of(Breakers breakers) {
    return target -> {
      CircuitBreaker breaker = breakers.of(target);
      if (breaker.state() != CircuitState.OPEN) {
        return breaker.state();
      }
      CircuitBreaker.Snapshot snapshot = breaker.snapshot();
      return snapshot.state() == CircuitState.OPEN && !snapshot.openRemaining().isPositive()
          ? CircuitState.HALF_OPEN
          : snapshot.state();
    };
  }
}
