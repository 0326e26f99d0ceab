package dev.levee.core.route;

import dev.levee.core.chain.Target;

/**
 * Whether a target's remaining rate limit covers a request before its reset (see {@link
 * RateLimits}): the router leaves a target that would answer 429 out of the candidates.
 * Implementations must be thread-safe and fast.
 */
@FunctionalInterface
public interface Pacing {

  /** Every request is covered. */
  Pacing NONE = (target, inputTokens) -> true;

  /** Whether {@code target} can take a request of {@code inputTokens} estimated input tokens now. */
  boolean covers(Target target, long inputTokens);
}
