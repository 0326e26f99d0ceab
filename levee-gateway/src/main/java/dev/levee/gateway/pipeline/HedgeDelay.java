package dev.levee.gateway.pipeline;

import dev.levee.core.chain.HedgePolicy;
import dev.levee.core.chain.Target;
import dev.levee.core.sli.SliSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * An alias's hedge delay, read for the target a request calls first: fixed, or that target's
 * measured p95 ({@link HedgePolicy}). Read when the order is final — after pacing and the
 * cooldowns, which may put another target first than the plan did (before session 13 the delay
 * was always the plan's first target's: {@code HedgeDelayOfTheTargetCalledFirstRegressionTest}).
 *
 * @param policy the alias's {@code hedge}
 * @param measured a target's recent calls (their count and p95), or null when it has none
 */
record HedgeDelay(HedgePolicy policy, Function<Target, SliSnapshot> measured) {

  HedgeDelay {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(measured, "measured");
  }

  /** The delay before the next target is called too, when the chain runs in {@code order}; null without a second target. */
  Duration after(List<Target> order) {
    if (order.size() < 2) {
      return null;
    }
    SliSnapshot first = measured.apply(order.getFirst());
    return first == null ? policy.delay(0, null) : policy.delay(first.successes(), Duration.ofMillis(first.p95Millis()));
  }
}
