package dev.levee.gateway.pipeline;

import dev.levee.core.tier.Tier;
import dev.levee.gateway.config.FailMode;
import dev.levee.gateway.config.Feature;
import java.util.Optional;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Stage 2, admission: what the request's feature, at its current tier, may have.
 *
 * <ul>
 *   <li><b>T0, T1</b>: go upstream (the planner decides which targets and edits).
 *   <li><b>T2</b>: a fresh cached answer (exact, then semantic when the feature has it on); on a
 *       miss, go upstream — a cold cache warms up, it does not fail.
 *   <li><b>T3</b>: no upstream call: fail-open features get their static text, fail-closed ones
 *       a refusal.
 *   <li><b>Probe</b>: at T1 and T2, a request the {@code TierBoard} picks as the trial of a circuit
 *       the tier above calls ({@code TierBoard.probe}: open period over, one request an evaluation)
 *       goes there instead — at T1 through the alias's full chain (admitted at T0), at T2 upstream
 *       to the reduced target instead of a cached answer — so a tier that stopped calling a target
 *       learns when it heals (docs/degradation.md, <i>Stepping up into a tested circuit</i>).
 * </ul>
 *
 * <p>A feature with {@code on-outage: queue} keeps a non-streaming request as a job ({@link
 * Queue}) at T3, and — degraded mode, after the seed — at T1 and T2 when the request's priority
 * is under the feature's {@code immediate-priority}, so that scarce capacity goes to the requests
 * that need an answer now. A fresh cached answer at T2 is still served (it costs no capacity).
 *
 * <p>A token count ({@code /v1/messages/count_tokens}) has no answer to degrade or cache: it
 * always goes upstream at T0. Thread-safe.
 */
final class Admission {

  /** What admission decided; {@link #tier()} is the tier the request was admitted at. */
  sealed interface Decision {
    Tier tier();
  }

  /** Levee answers from the cache, without an upstream call. */
  record FromCache(Tier tier, CachedAnswers.Found answer) implements Decision {}

  /** T3 fail-open: the feature's static answer. */
  record StaticText(Tier tier) implements Decision {}

  /** T3 fail-closed: refuse, echoing the input. */
  record FailClosed(Tier tier) implements Decision {}

  /**
   * Keep the request as a job instead ({@code on-outage: queue}, not a stream): the feature is at
   * T3, or at T1/T2 and the request's priority is under the feature's {@code immediate-priority}.
   *
   * @param otherwise what the request gets when it cannot be queued (a client key that would
   *     have to be kept without {@code queue.secret})
   */
  record Queue(Tier tier, Decision otherwise) implements Decision {}

  /**
   * Go upstream.
   *
   * @param cache where the answer is written back, and looked up as the last resort
   * @param cacheMissed whether a T2 lookup found nothing ({@code x-levee-cache: miss})
   */
  record Proceed(Tier tier, CacheSlot cache, boolean cacheMissed) implements Decision {}

  private final Function<InboundRequest, Tier> tiers;
  private final CachedAnswers cache;
  private final Predicate<String> queues;
  private final BiPredicate<InboundRequest, Tier> probes;

  /**
   * @param tiers the current tier of a request's feature through its alias (the {@code TierBoard})
   */
  Admission(Function<InboundRequest, Tier> tiers, CachedAnswers cache) {
    this(tiers, cache, feature -> false);
  }

  /**
   * @param queues whether a feature queues what it cannot answer now ({@code on-outage: queue})
   */
  Admission(Function<InboundRequest, Tier> tiers, CachedAnswers cache, Predicate<String> queues) {
    this(tiers, cache, queues, (in, tier) -> false);
  }

  /**
   * @param probes whether a request admitted at a tier (T1 or T2) is the trial of a circuit the
   *     tier above calls ({@code TierBoard.probe}); claims the trial when it says yes
   */
  Admission(Function<InboundRequest, Tier> tiers, CachedAnswers cache, Predicate<String> queues,
      BiPredicate<InboundRequest, Tier> probes) {
    this.tiers = tiers;
    this.cache = cache;
    this.queues = queues;
    this.probes = probes;
  }

  /** The decision for a client's request: {@link #decide}, or {@link Queue} when the feature queues it. */
  Decision admit(InboundRequest in) {
    Decision decision = decide(in);
    if (in.stream() || !in.asksForAnswer() || !queues.test(in.feature())) {
      return decision; // a stream has no later
    }
    Tier tier = decision.tier();
    boolean degraded = tier != Tier.T0 && decision instanceof Proceed
        && in.priority() < in.config().immediatePriority();
    return tier == Tier.T3 || degraded ? new Queue(tier, decision) : decision;
  }

  /** What the request may have at its feature's tier; never {@link Queue} (a queued job runs through this). */
  Decision decide(InboundRequest in) {
    if (!in.asksForAnswer()) {
      return new Proceed(Tier.T0, CacheSlot.NONE, false);
    }
    Feature feature = in.config();
    Tier tier = tiers.apply(in);
    CacheSlot slot = CacheSlot.of(in, feature.semantic());
    return switch (tier) {
      case T0 -> new Proceed(tier, slot, false);
      case T1 -> new Proceed(probes.test(in, tier) ? Tier.T0 : tier, slot, false);
      case T2 -> {
        if (probes.test(in, tier)) {
          yield new Proceed(tier, slot, false); // the reduced target's trial, not a cached answer
        }
        Optional<CachedAnswers.Found> fresh = cache.fresh(slot, feature.semanticThreshold());
        yield fresh.<Decision>map(found -> new FromCache(tier, found)).orElse(new Proceed(tier, slot, true));
      }
      case T3 -> feature.failMode() == FailMode.CLOSED ? new FailClosed(tier) : new StaticText(tier);
    };
  }
}
