package dev.levee.gateway.pipeline;

import dev.levee.core.tier.Tier;
import dev.levee.gateway.config.FailMode;
import dev.levee.gateway.config.Feature;
import java.util.Optional;
import java.util.function.Function;

/**
 * Stage 2, admission: what the request's feature, at its current tier, may have.
 *
 * <ul>
 *   <li><b>T0, T1</b>: go upstream (the planner decides which targets and edits).
 *   <li><b>T2</b>: a fresh cached answer (exact, then semantic when the feature has it on); on a
 *       miss, go upstream — a cold cache warms up, it does not fail.
 *   <li><b>T3</b>: no upstream call: fail-open features get their static text, fail-closed ones
 *       a refusal.
 * </ul>
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
   * Go upstream.
   *
   * @param cache where the answer is written back, and looked up as the last resort
   * @param cacheMissed whether a T2 lookup found nothing ({@code x-levee-cache: miss})
   */
  record Proceed(Tier tier, CacheSlot cache, boolean cacheMissed) implements Decision {}

  private final Function<InboundRequest, Tier> tiers;
  private final CachedAnswers cache;

  /**
   * @param tiers the current tier of a request's feature through its alias (the {@code TierBoard})
   */
  Admission(Function<InboundRequest, Tier> tiers, CachedAnswers cache) {
    this.tiers = tiers;
    this.cache = cache;
  }

  Decision admit(InboundRequest in) {
    if (!in.asksForAnswer()) {
      return new Proceed(Tier.T0, CacheSlot.NONE, false);
    }
    Feature feature = in.config();
    Tier tier = tiers.apply(in);
    CacheSlot slot = CacheSlot.of(in, feature.semantic());
    return switch (tier) {
      case T0, T1 -> new Proceed(tier, slot, false);
      case T2 -> {
        Optional<CachedAnswers.Found> fresh = cache.fresh(slot, feature.semanticThreshold());
        yield fresh.<Decision>map(found -> new FromCache(tier, found)).orElse(new Proceed(tier, slot, true));
      }
      case T3 -> feature.failMode() == FailMode.CLOSED ? new FailClosed(tier) : new StaticText(tier);
    };
  }
}
