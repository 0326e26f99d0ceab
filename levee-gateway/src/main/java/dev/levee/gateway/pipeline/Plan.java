package dev.levee.gateway.pipeline;

import dev.levee.anthropic.upstream.OriginalRequest;
import dev.levee.core.chain.Target;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.route.RouteDecision;
import java.time.Duration;
import java.util.List;

/**
 * How one request goes upstream: the planner's answer.
 *
 * @param targets the targets to try, in order (not empty)
 * @param request the request with the tier's edits ({@code max_tokens} cap, thinking removed)
 * @param deadline the one deadline over every attempt, wait and fallback
 * @param recover whether a stream that breaks after its commit point is recovered
 * @param storeTtl how long the answer is cached: the feature's hot TTL, its cold TTL for a T2
 *     regeneration, zero when it is not cached
 * @param reduced whether the targets are the feature's reduced ones (T1, or T2 on a miss)
 * @param hedge the alias's hedge delay ({@link #hedgeAfter(List)}); null: no hedge
 * @param route the scoring router's decision that ordered {@code targets} ({@code route: score}
 *     at T0), or null when the targets are the chain as written
 * @param changes below T0, what the tier's edits changed for this request ({@code reduced model
 *     claude-haiku-4-5}, {@code max_tokens 4096 capped at 1024}, {@code thinking removed}, joined
 *     by {@code ", "}); null when they changed nothing (or at T0)
 */
record Plan(List<Target> targets, OriginalRequest request, Deadline deadline, boolean recover, Duration storeTtl,
    boolean reduced, HedgeDelay hedge, RouteDecision route, String changes) {

  Plan {
    targets = List.copyOf(targets);
  }

  /** A plan without a hedge, in the chain's order. */
  Plan(List<Target> targets, OriginalRequest request, Deadline deadline, boolean recover, Duration storeTtl,
      boolean reduced) {
    this(targets, request, deadline, recover, storeTtl, reduced, null, null, null);
  }

  /**
   * How long the first call may go without its first byte before the next target is called too,
   * when the chain runs in {@code order} (pacing and cooldowns may change the first target): the
   * delay of the target called first; null without a hedge or a second target.
   */
  Duration hedgeAfter(List<Target> order) {
    return hedge == null ? null : hedge.after(order);
  }

  /** {@link #hedgeAfter(List)} in the plan's own order. */
  Duration hedgeAfter() {
    return hedgeAfter(targets);
  }

  /**
   * {@code x-levee-route}: the candidates and their scores, best first ({@code none} when the
   * router excluded every target); null when not routed.
   */
  String explainRoute() {
    if (route == null) {
      return null;
    }
    return route.ranked().isEmpty() ? "none" : route.explain();
  }

  /**
   * {@link #changes()} for an answer from {@code answered}: without its reduced model when another
   * target answered (a fallback past the reduced target: the model is the client's own, {@code
   * x-levee-model} names it); as planned when {@code answered} is null (no target answered).
   */
  String changesAnsweredBy(Target answered) {
    if (changes == null || answered == null || answered.equals(targets.getFirst())
        || !changes.startsWith(Planner.REDUCED_MODEL)) {
      return changes;
    }
    int rest = changes.indexOf(", ");
    return rest < 0 ? null : changes.substring(rest + 2);
  }
}
