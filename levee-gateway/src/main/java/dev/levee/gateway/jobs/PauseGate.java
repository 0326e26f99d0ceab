package dev.levee.gateway.jobs;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.gateway.Aliases;
import dev.levee.gateway.tier.TierBoard;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Which queued work must wait now, so workers do not spend calls that cannot succeed nor take
 * scarce capacity from interactive traffic:
 *
 * <ul>
 *   <li>an alias (or pass-through model) whose every target has an OPEN breaker still inside its
 *       open period or is cooling after a rate limit — once the period or the cooldown has
 *       passed, a job may be the trial call, so work resumes by itself;
 *   <li>a feature at T2 (cached) or T3 (static): its interactive requests are being shed, so its
 *       queued work is too, until the tier steps back up;
 *   <li>a feature with {@code on-outage: queue} at T1: degraded mode queued its low-priority
 *       requests so that they do not compete for the scarce capacity; they run once it is back
 *       at T0.
 * </ul>
 */
public final class PauseGate {

  /** What is paused at one moment. */
  public record Paused(Set<String> aliases, Set<String> features) {
    public static final Paused NONE = new Paused(Set.of(), Set.of());
  }

  private final Aliases routes;
  private final Collection<String> aliases;
  private final Breakers breakers;
  private final TierBoard tiers;
  private final Collection<String> features;
  private final Predicate<String> queues;

  /**
   * @param aliases the configured aliases
   * @param features the configured features (the {@code default} one included)
   */
  public PauseGate(Aliases routes, Collection<String> aliases, Breakers breakers, TierBoard tiers,
      Collection<String> features) {
    this(routes, aliases, breakers, tiers, features, feature -> false);
  }

  /**
   * @param queues whether a feature has {@code on-outage: queue} (its work also waits at T1)
   */
  public PauseGate(Aliases routes, Collection<String> aliases, Breakers breakers, TierBoard tiers,
      Collection<String> features, Predicate<String> queues) {
    this.queues = queues;
    this.routes = routes;
    this.aliases = List.copyOf(aliases);
    this.breakers = breakers;
    this.tiers = tiers;
    this.features = List.copyOf(features);
  }

  public Paused paused() {
    Set<String> aliasesOut = new LinkedHashSet<>();
    for (String alias : aliases) {
      if (noneReady(routes.resolve(alias).targets())) {
        aliasesOut.add(alias);
      }
    }
    for (Target target : breakers.circuits().keySet()) { // pass-through models go alone to the default upstream
      if (target.upstream().equals(routes.defaultUpstream()) && !aliases.contains(target.model())
          && noneReady(List.of(target))) {
        aliasesOut.add(target.model());
      }
    }
    Set<String> featuresOut = new LinkedHashSet<>();
    for (String feature : features) {
      Tier tier = tiers.tier(feature);
      if (tier == Tier.T2 || tier == Tier.T3 || tier == Tier.T1 && queues.test(feature)) {
        featuresOut.add(feature);
      }
    }
    return aliasesOut.isEmpty() && featuresOut.isEmpty() ? Paused.NONE : new Paused(aliasesOut, featuresOut);
  }

  /** Whether every target is OPEN inside its open period or cooling after a rate limit. */
  private boolean noneReady(List<Target> targets) {
    for (Target target : targets) {
      CircuitBreaker.Snapshot s = breakers.of(target).snapshot();
      boolean open = s.state() == CircuitState.OPEN && s.openRemaining().isPositive();
      if (!open && !tiers.cooldowns().cooling(target)) {
        return false;
      }
    }
    return !targets.isEmpty();
  }
}
