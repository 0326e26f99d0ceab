package dev.levee.gateway.pipeline;

import dev.levee.anthropic.stream.StreamEngine;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.anthropic.upstream.Upstreams;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.FallbackChain;
import dev.levee.core.chain.ReservedPermit;
import dev.levee.core.chain.Target;
import dev.levee.core.cooldown.CooldownPlan;
import dev.levee.gateway.route.Paced;
import dev.levee.gateway.route.ScoreRouting;
import dev.levee.gateway.tier.TierBoard;
import java.util.ArrayList;
import java.util.List;

/**
 * Stage 4, execute: the fallback chain under the plan's one deadline — a JSON call, or a stream
 * up to its commit point, the first call hedged when the plan says so.
 *
 * <p>Before the chain runs, a routed plan is paced: the first candidate whose rate limit covers
 * the request goes first; when none does, the request waits for the earliest reset if the
 * deadline holds it, else it is refused with 429 and {@code retry-after}. Targets cooling after
 * a rate limit are skipped; when every one cools, the request waits for the first if that wait is
 * at most {@code max-retry-after} and the deadline holds it, else it is refused likewise. Every answer's rate-limit headers are read for pacing.
 * Waits end at once when the request's thread is interrupted (the client left). Thread-safe.
 */
final class Execution {

  private final FallbackChain chain;
  private final StreamEngine streams;
  private final Upstreams upstreams;
  private final TierBoard tiers;
  private final ScoreRouting routing;

  Execution(FallbackChain chain, StreamEngine streams, Upstreams upstreams, TierBoard tiers, ScoreRouting routing) {
    this.chain = chain;
    this.streams = streams;
    this.upstreams = upstreams;
    this.tiers = tiers;
    this.routing = routing;
  }

  /** Runs the plan; {@code cancellation} closes every upstream call when the client goes away. */
  ChainResult<Reply> execute(InboundRequest in, Plan plan, Cancellation cancellation) {
    return execute(in, plan, cancellation, ReservedPermit.NONE);
  }

  /**
   * Runs the plan, the first JSON call to {@code reserved}'s target under that permit (a queued
   * job that is its target's trial call); the caller releases it. That target goes first, unpaced,
   * whatever the router's order: the job is its trial (review: a routed alias's router ranked the
   * healed primary, its outage still in its statistics, below the fallback, which answered every
   * trial job while the primary was never tested). Its call is not hedged, whatever the plan's
   * hedge delay: {@link FallbackChain} never hedges a trial, so the trial runs to its verdict. The
   * hedge delay of any other call is the one of the target it calls first, once pacing and the
   * cooldowns have set the order ({@link Plan#hedgeAfter(List)}).
   */
  ChainResult<Reply> execute(InboundRequest in, Plan plan, Cancellation cancellation, ReservedPermit reserved) {
    Target trial = reserved.target();
    boolean trialFirst = trial != null && plan.targets().contains(trial);
    List<Target> targets = trialFirst ? first(trial, plan.targets()) : plan.targets();
    CooldownPlan cooled;
    try {
      if (plan.route() != null && !trialFirst) {
        Paced paced = routing.pace(in.alias().alias(), plan.route(), in.route().inputTokens(), plan.deadline(),
            chain.policy().minAttemptTime());
        if (paced instanceof Paced.Refuse refused) {
          return refused.result();
        }
        targets = ((Paced.Go) paced).targets();
      }
      cooled = tiers.awaitCooldowns(targets, plan.deadline(), chain.policy().minAttemptTime(),
          chain.policy().retry().retryAfter().maxRetryAfter());
    } catch (InterruptedException e) { // the client went away during the wait
      return new ChainResult.Cancelled<>(List.of());
    }
    if (!(cooled instanceof CooldownPlan.Go go)) {
      return TierBoard.refusal((CooldownPlan.Refuse) cooled);
    }
    return in.stream()
        ? streams.open(plan.request(), go.targets(), plan.deadline(), cancellation, plan.hedgeAfter(go.targets()),
            routing::reading)
        : chain.execute(go.targets(), plan.deadline(), false, routing.reading(upstreams.json(plan.request(), cancellation)),
            plan.hedgeAfter(go.targets()), reserved);
  }

  /** {@code order} with {@code target} moved to the front. */
  private static List<Target> first(Target target, List<Target> order) {
    List<Target> reordered = new ArrayList<>(order.size());
    reordered.add(target);
    order.stream().filter(t -> !t.equals(target)).forEach(reordered::add);
    return reordered;
  }
}
