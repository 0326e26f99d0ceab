package dev.levee.gateway.pipeline;

import dev.levee.anthropic.upstream.OriginalRequest;
import dev.levee.core.chain.HedgePolicy;
import dev.levee.core.chain.Target;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.sli.SliSnapshot;
import dev.levee.core.route.RouteDecision;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.config.Feature;
import dev.levee.gateway.route.ScoreRouting;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Stage 3, plan: the targets for this request and what is sent to them.
 *
 * <ul>
 *   <li><b>T0</b>: the alias's chain — or, for an alias with {@code route: score}, its targets in
 *       the scoring router's order (the best candidate first, the other candidates as fallbacks,
 *       then the targets it left out: OPEN circuit, cooling, rate-limited); extended thinking kept unless the feature says {@code
 *       never}; answers cached with the hot TTL.
 *   <li><b>T1</b>: the feature's reduced target (default: the chain's last) first, then the alias's
 *       other targets from the chain's end back to its start — a lower tier is never worse than the
 *       one above: with the reduced target's circuit open or its call failed, a slow but working
 *       primary still answers (newcomer trial, session 20: before, every request got 503 for the
 *       reduced target's open period), and it is asked last, as the target whose trouble most
 *       likely sent the tier down; not hedged; {@code max_tokens} capped (default 1024), thinking
 *       removed (unless {@code thinking: always}); hot TTL.
 *   <li><b>T2</b> (a cache miss): as T1, cached with the cold TTL.
 * </ul>
 *
 * <p>A token count goes to the alias's chain unchanged. Every plan carries one deadline ({@code
 * policy.deadline}, from now). An answer through an alias with a {@code hedge} carries its hedge
 * delay: fixed, or the measured p95 of the target called first, once the order is final ({@link
 * HedgeDelay}). Thread-safe.
 */
final class Planner {

  /** How {@link #changes} names a reduced model, first of the changes. */
  static final String REDUCED_MODEL = "reduced model ";

  private final Duration deadline;
  private final Ticker ticker;
  private final Function<Target, SliSnapshot> measured;
  private final ScoreRouting routing;

  Planner(Duration deadline, Ticker ticker) {
    this(deadline, ticker, target -> null, null);
  }

  /**
   * @param measured a target's recent calls (their count and p95 latency), for {@code hedge: {
   *     after: p95 }}; null when nothing is known
   * @param routing the scoring router for aliases with {@code route: score}; null when none is routed
   */
  Planner(Duration deadline, Ticker ticker, Function<Target, SliSnapshot> measured, ScoreRouting routing) {
    this.deadline = deadline;
    this.ticker = ticker;
    this.measured = measured;
    this.routing = routing;
  }

  Plan plan(InboundRequest in, Admission.Proceed admitted) {
    Deadline requestDeadline = Deadline.after(deadline, ticker);
    boolean recover = in.alias().recover();
    if (!in.asksForAnswer()) {
      return new Plan(in.alias().targets(), in.request(), requestDeadline, recover, Duration.ZERO, false);
    }
    Feature feature = in.config();
    Tier tier = admitted.tier();
    boolean reduced = tier != Tier.T0;
    RouteDecision route = !reduced && in.route() != null && routing != null ? routing.decide(in.alias(), in.route()) : null;
    List<Target> targets = reduced ? reducedTargets(in) : route != null ? route.order() : in.alias().targets();
    OriginalRequest shaped = shaped(in, tier);
    return new Plan(targets, shaped, requestDeadline, recover,
        tier == Tier.T2 ? feature.coldTtl() : feature.hotTtl(), reduced, reduced ? null : hedge(in.alias().hedge()), route,
        reduced ? changes(in, targets, shaped) : null);
  }

  /**
   * What a reduced plan changes for the client, for {@code x-levee-degraded}: the model, when the
   * reduced target is not the chain's first (a one-target chain, or a reduced target equal to the
   * first, changes none); {@code max_tokens}, when the client asked for more than the cap; {@code
   * thinking}, when the request had it and the tier removes it. Null when nothing changed.
   */
  static String changes(InboundRequest in, List<Target> targets, OriginalRequest shaped) {
    List<String> changed = new java.util.ArrayList<>(3);
    if (!targets.getFirst().equals(in.alias().targets().getFirst())) {
      changed.add(REDUCED_MODEL + targets.getFirst().model());
    }
    long asked = in.body().maxTokens();
    if (shaped.maxTokensCap() > 0 && asked > shaped.maxTokensCap()) {
      changed.add("max_tokens " + asked + " capped at " + shaped.maxTokensCap());
    }
    if (shaped.drop().contains("thinking") && in.body().has("thinking")) {
      changed.add("thinking removed");
    }
    return changed.isEmpty() ? null : String.join(", ", changed);
  }

  /** The alias's hedge delay, read for the target each request calls first; null without a hedge policy. */
  private HedgeDelay hedge(HedgePolicy hedge) {
    return hedge == null ? null : new HedgeDelay(hedge, measured);
  }

  /** The reduced target, then the alias's other targets from the chain's end back to its start. */
  private static List<Target> reducedTargets(InboundRequest in) {
    Feature.Reduced configured = in.config().reduced();
    Target reduced = configured != null && configured.target() != null
        ? new Target(configured.target().upstream(), configured.target().model()) : in.alias().last();
    List<Target> targets = new java.util.ArrayList<>(in.alias().targets().size() + 1);
    targets.add(reduced);
    for (Target t : in.alias().targets().reversed()) {
      if (!t.equals(reduced)) {
        targets.add(t);
      }
    }
    return targets;
  }

  /** The request as the tier sends it: below T0 {@code max_tokens} capped; thinking as the feature says. */
  private static OriginalRequest shaped(InboundRequest in, Tier tier) {
    Feature feature = in.config();
    long cap = tier == Tier.T0 ? 0 : (feature.reduced() != null ? feature.reduced().maxTokens() : Feature.Reduced.DEFAULT_MAX_TOKENS);
    return in.request().shaped(cap,
        feature.thinking().keeps(tier) ? Set.of() : Set.of("thinking"));
  }
}
