package dev.levee.gateway.jobs;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.gateway.Aliases;
import dev.levee.gateway.tier.TierBoard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Which queued work must wait now, so workers do not spend calls that cannot succeed nor take
 * scarce capacity from interactive traffic — and why, for {@code GET /v1/levee/jobs/{id}}:
 *
 * <ul>
 *   <li>an alias (or pass-through model) whose every target has an OPEN breaker still inside its
 *       open period, a HALF_OPEN breaker whose trial calls are all in flight (the trial decides:
 *       closed, work resumes; open again, it waits out the new period — newcomer trial, session 9:
 *       a backlog claimed beside the trial met "circuit half-open, trial in flight" hundreds of
 *       times), or is cooling after a rate limit — once the period or the cooldown has passed, a
 *       job may be the trial call, so work resumes by itself;
 *   <li>a feature and alias pair at T2 (cached) or T3 (static): that pair's interactive requests
 *       are being shed, so its queued work is too, until its tier steps back up. The pair's own
 *       tier, as interactive requests use it — not the feature's, which is its worst alias's: a
 *       sick alias holds its own work, never a healthy alias's ("degrade only what is sick");
 *   <li>a pair whose feature has {@code on-outage: queue} at T1: degraded mode queued its
 *       low-priority requests so that they do not compete for the scarce capacity; they run once
 *       the pair is back at T0;
 *   <li>a feature forced (the admin API) to T2 or T3, or to T1 when it queues: every alias.
 * </ul>
 */
public final class PauseGate {

  /** A feature and alias pair whose queued work is held by its own tier. */
  public record Scope(String feature, String alias) {}

  /**
   * What is paused at one moment.
   *
   * @param aliases aliases (and pass-through models) none of whose targets can answer now
   * @param features features held whole (forced below T0)
   * @param scopes feature and alias pairs held by their own tier
   * @param reasons why, per alias, feature or pair (see {@link #why})
   */
  public record Paused(Set<String> aliases, Set<String> features, Set<Scope> scopes, Map<String, String> reasons) {
    public static final Paused NONE = new Paused(Set.of(), Set.of(), Set.of(), Map.of());

    /** Aliases and features held, without pairs or reasons. */
    public Paused(Set<String> aliases, Set<String> features) {
      this(aliases, features, Set.of(), Map.of());
    }

    /**
     * Why work of {@code feature} through {@code alias} is held now — every hold that applies,
     * joined with {@code "; "} (the alias's targets, then a forced feature, then the pair's tier);
     * empty when it is not held.
     */
    public Optional<String> why(String feature, String alias) {
      List<String> why = new ArrayList<>(2);
      if (aliases.contains(alias)) {
        why.add(reasons.getOrDefault(aliasKey(alias), "held: no target of alias " + alias + " can answer now"));
      }
      if (features.contains(feature)) {
        why.add(reasons.getOrDefault(featureKey(feature), "held: feature " + feature + " is degraded"));
      }
      if (scopes.contains(new Scope(feature, alias))) {
        why.add(reasons.getOrDefault(scopeKey(feature, alias),
            "held: alias " + alias + " of feature " + feature + " is degraded"));
      }
      return why.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", why));
    }
  }

  private static String aliasKey(String alias) {
    return "alias\u0000" + alias;
  }

  private static String featureKey(String feature) {
    return "feature\u0000" + feature;
  }

  private static String scopeKey(String feature, String alias) {
    return "scope\u0000" + feature + "\u0000" + alias;
  }

  private final Aliases routes;
  private final Collection<String> aliases;
  private final Breakers breakers;
  private final TierBoard tiers;
  private final Set<String> features;
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
    this.features = Set.copyOf(features);
  }

  public Paused paused() {
    Set<String> aliasesOut = new LinkedHashSet<>();
    Map<String, String> reasons = new LinkedHashMap<>();
    for (String alias : aliases) {
      String why = noneReady(routes.resolve(alias).targets(), breakers::of); // configured: never evicted
      if (why != null) {
        aliasesOut.add(alias);
        reasons.put(aliasKey(alias), "held: no target of alias " + alias + " can answer now (" + why + ")");
      }
    }
    // Pass-through models go alone to the default upstream. Their breakers are read as held (a
    // quiet read): asking through Breakers.of once a poll was a use, so a client-named breaker never
    // went idle and was never evicted (newcomer trial: OPEN for 24 minutes after one stream).
    for (Map.Entry<Target, CircuitBreaker> held : breakers.circuits().entrySet()) {
      Target target = held.getKey();
      if (target.upstream().equals(routes.defaultUpstream()) && !aliases.contains(target.model())) {
        String why = noneReady(List.of(target), t -> held.getValue());
        if (why != null) {
          aliasesOut.add(target.model());
          reasons.put(aliasKey(target.model()), "held: model " + target.model() + " cannot answer now (" + why + ")");
        }
      }
    }
    Set<String> featuresOut = new LinkedHashSet<>();
    Set<Scope> scopesOut = new LinkedHashSet<>();
    for (TierBoard.Degraded d : tiers.degraded()) {
      if (!features.contains(d.feature()) || !holds(d.feature(), d.tier())) {
        continue;
      }
      if (d.alias() == null) { // forced: every alias of the feature
        featuresOut.add(d.feature());
        reasons.put(featureKey(d.feature()), "held: feature " + d.feature() + " is forced to " + d.tier()
            + (d.reason() == null ? "" : " (" + d.reason() + ")") + atT1(d.feature(), d.tier()));
      } else if (!d.alias().equals(TierBoard.OTHER_MODELS)) { // shared by client-chosen names: its jobs find the tier when they run
        scopesOut.add(new Scope(d.feature(), d.alias()));
        reasons.put(scopeKey(d.feature(), d.alias()), "held: alias " + d.alias() + " of feature " + d.feature()
            + " is at " + d.tier() + explain(d) + atT1(d.feature(), d.tier()));
      }
    }
    return aliasesOut.isEmpty() && featuresOut.isEmpty() && scopesOut.isEmpty() ? Paused.NONE
        : new Paused(Set.copyOf(aliasesOut), Set.copyOf(featuresOut), Set.copyOf(scopesOut), Map.copyOf(reasons));
  }

  /** Whether work at {@code tier} waits: T2 and T3 always, T1 when the feature queues on an outage. */
  private boolean holds(String feature, Tier tier) {
    return tier == Tier.T2 || tier == Tier.T3 || tier == Tier.T1 && queues.test(feature);
  }

  private String atT1(String feature, Tier tier) {
    return tier == Tier.T1 ? "; on-outage: queue keeps queued work until T0" : "";
  }

  private static String explain(TierBoard.Degraded d) {
    List<String> parts = new ArrayList<>(2);
    if (d.reason() != null) {
      parts.add("last evaluation: " + d.reason());
    }
    if (d.cause() != null) {
      parts.add("stepped down: " + d.cause());
    }
    return parts.isEmpty() ? "" : " (" + String.join("; ", parts) + ")";
  }

  /**
   * Null when some target is neither OPEN inside its open period, nor HALF_OPEN with its trials
   * in flight, nor cooling after a rate limit; else what each target waits for.
   */
  private String noneReady(List<Target> targets, Function<Target, CircuitBreaker> breakerOf) {
    if (targets.isEmpty()) {
      return null;
    }
    List<String> why = new ArrayList<>(targets.size());
    for (Target target : targets) {
      CircuitBreaker breaker = breakerOf.apply(target);
      CircuitBreaker.Snapshot s = breaker.snapshot();
      boolean open = s.state() == CircuitState.OPEN && s.openRemaining().isPositive();
      boolean trial = !open && breaker.awaitingTrial();
      boolean cooling = tiers.cooldowns().cooling(target);
      if (!open && !trial && !cooling) {
        return null;
      }
      why.add(target.id() + (open ? ": circuit open, " + seconds(s.openRemaining()) + " left"
          : trial ? ": circuit half-open, trial in flight"
          : ": cooling after a rate limit, " + seconds(tiers.cooldowns().remaining(target)) + " left"));
    }
    return String.join("; ", why);
  }

  private static String seconds(Duration d) {
    return Math.max(1, (d.toMillis() + 999) / 1000) + " s";
  }
}
