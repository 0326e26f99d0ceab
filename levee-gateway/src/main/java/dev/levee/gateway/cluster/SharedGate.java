package dev.levee.gateway.cluster;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Gate;
import dev.levee.core.breaker.Permit;
import java.time.Duration;

/**
 * A {@link SharedBreaker} as the fallback chain's {@link Gate}: its admissions become the chain's
 * verdicts, its permits {@link Permit#external external} permits that settle the shared one, so
 * the chain works unchanged with a breaker shared by every replica.
 */
final class SharedGate implements Gate {

  private final SharedBreaker breaker;

  SharedGate(SharedBreaker breaker) {
    this.breaker = breaker;
  }

  @Override
  public CircuitBreaker.Verdict tryAcquire() {
    return switch (breaker.tryAcquire()) {
      case SharedBreaker.Admitted(SharedPermit permit) -> new CircuitBreaker.Admitted(
          Permit.external(breaker.target(), permit.trial(), outcome -> settle(permit, outcome)));
      case SharedBreaker.Rejected(CircuitState state, Duration retryAfter) -> new CircuitBreaker.Rejected(state, retryAfter);
    };
  }

  @Override
  public CircuitState state() {
    return breaker.state();
  }

  @Override
  public Duration openRemaining() {
    return breaker.openRemaining();
  }

  @Override
  public boolean awaitingTrial() {
    return breaker.awaitingTrial();
  }

  private static void settle(SharedPermit permit, Permit.Outcome outcome) {
    switch (outcome) {
      case SUCCESS -> permit.success();
      case FAILURE -> permit.failure();
      case CANCELLED -> permit.cancelled();
    }
  }
}
