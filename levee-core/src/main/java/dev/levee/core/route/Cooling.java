package dev.levee.core.route;

import dev.levee.core.chain.Target;

/**
 * Whether a target is cooling down (a rate-limit cooldown after a 429, for example): the router
 * leaves a cooling target out of the candidates. Implementations must be thread-safe and fast.
 */
@FunctionalInterface
public interface Cooling {

  /** Nothing ever cools down. */
  Cooling NONE = target -> false;

  /** Whether {@code target} is cooling down now. */
  boolean coolingDown(Target target);
}
