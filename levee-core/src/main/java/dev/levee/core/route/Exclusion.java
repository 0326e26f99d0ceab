package dev.levee.core.route;

import dev.levee.core.chain.Target;

/**
 * A target of the chain that is not a candidate for this request, and why.
 *
 * @param target the target
 * @param reason why it was left out
 */
public record Exclusion(Target target, Reason reason) {

  /** Why a target is not a candidate; checked in this order. */
  public enum Reason {
    /** Its circuit is OPEN and its open period has not passed. */
    CIRCUIT_OPEN,
    /** It is cooling down ({@link Cooling}). */
    COOLING_DOWN,
    /** Its remaining rate limit would not cover the request before the reset ({@link Pacing}). */
    RATE_LIMITED
  }
}
