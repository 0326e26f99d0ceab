package dev.levee.gateway.tier;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.core.chain.Target;
import dev.levee.core.cooldown.RateLimitCooldowns;
import dev.levee.core.sli.SliSnapshot;
import dev.levee.core.tier.Tier;
import dev.levee.core.tier.TierController;
import dev.levee.core.tier.TierTransition;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The JSON reports of {@link TierBoard#status()} ({@code GET /admin/tiers}, {@code /health}) and
 * {@link TierBoard#targetStatus()} ({@code /health}), read from the board's live maps, moved out of
 * {@link TierBoard}. Reads only; as thread-safe as the maps it reads.
 */
final class TierReport {

  private final Map<String, FeatureTier> features;
  private final Map<TierBoard.ScopeKey, ScopeHealth> scopes;
  private final Map<String, TierTransition> lastTransition;
  private final Ticker ticker;
  private final TargetWindows calls;
  private final RateLimitCooldowns cooldowns;
  private final Function<String, Tier> tier;
  private final Function<String, Tier> evaluated;
  private final Function<String, Tier> otherModelsTier;
  private final Function<String, Duration> forcedRemaining;
  private final Function<String, String> forceReason;
  private final Function<ScopeHealth, Tier> scopeTier;
  /** The configured aliases, each with its chain, in config order (their {@code models:} order). */
  private final Map<String, List<Target>> configured;
  private final Function<String, Map<String, Tier>> unservedBelowT0;
  private final Function<String, String> lease;
  private final BiFunction<String, String, String> publishedCause;

  /**
   * @param scopeTier a scope's own (automatic) tier: its controller's, or the shared one
   * @param configuredAliases the configured aliases in config order, each with its chain: {@code
   *     aliases} lists them first, in it
   * @param unservedBelowT0 a feature's configured aliases this replica has no scope of whose tier in
   *     force (the one the cluster published) is below T0, in config order
   * @param lease the feature's {@code tier_lease}: {@code held}, {@code elsewhere} or {@code alone}
   * @param publishedCause why a feature's alias is in the tier the cluster published (its lease
   *     holder's cause), or null: for alias rows of a replica whose lease is {@code elsewhere}
   */
  TierReport(Map<String, FeatureTier> features, Map<TierBoard.ScopeKey, ScopeHealth> scopes,
      Map<String, TierTransition> lastTransition, Ticker ticker, TargetWindows calls, RateLimitCooldowns cooldowns,
      Function<String, Tier> tier, Function<String, Tier> evaluated,
      Function<String, Tier> otherModelsTier, Function<String, Duration> forcedRemaining,
      Function<String, String> forceReason, Function<ScopeHealth, Tier> scopeTier,
      Map<String, List<Target>> configuredAliases, Function<String, Map<String, Tier>> unservedBelowT0,
      Function<String, String> lease, BiFunction<String, String, String> publishedCause) {
    this.publishedCause = publishedCause;
    this.configured = new LinkedHashMap<>(configuredAliases);
    this.unservedBelowT0 = unservedBelowT0;
    this.lease = lease;
    this.features = features;
    this.scopes = scopes;
    this.lastTransition = lastTransition;
    this.ticker = ticker;
    this.calls = calls;
    this.cooldowns = cooldowns;
    this.tier = tier;
    this.evaluated = evaluated;
    this.otherModelsTier = otherModelsTier;
    this.forcedRemaining = forcedRemaining;
    this.forceReason = forceReason;
    this.scopeTier = scopeTier;
  }

  /** The body of {@link TierBoard#status()} (its Javadoc gives the fields). */
  ArrayNode status() {
    ArrayNode all = Json.MAPPER.createArrayNode();
    features.forEach((name, feature) -> {
      String leaseHere = lease.apply(name);
      boolean decidesHere = !leaseHere.equals(TierBoard.LEASE_ELSEWHERE);
      Map<String, ScopeHealth> own = new TreeMap<>(); // by alias: client-chosen names are listed by name
      scopes.values().stream().filter(s -> s.feature().equals(name)).forEach(s -> own.put(s.alias(), s));
      // configured aliases no request of this feature used here: the tier in force for them is the published one
      // (the feature's tier and automatic count them already: TierBoard#tier(String))
      Map<String, Tier> unused = unservedBelowT0.apply(name);
      String forced = forceReason.apply(name);
      ObjectNode f = all.addObject();
      f.put("feature", name);
      f.put("priority", feature.priority().name().toLowerCase(Locale.ROOT));
      f.put("tier", tier.apply(name).name());
      f.put("automatic", evaluated.apply(name).name());
      f.put("tier_lease", leaseHere);
      f.put("forced_remaining_ms", forcedRemaining.apply(name).toMillis());
      if (forced != null) {
        f.put("forced_reason", forced); // the last force's words: a new force replaces them
      }
      transition(f, lastTransition.get(name));
      ArrayNode aliases = f.putArray("aliases");
      // configured aliases first, in config order, then the names clients chose, by name
      for (Map.Entry<String, List<Target>> alias : configured.entrySet()) {
        ScopeHealth s = own.remove(alias.getKey());
        if (s != null) {
          scopeStatus(aliases.addObject(), s, decidesHere);
        } else if (unused.containsKey(alias.getKey())) {
          publishedStatus(aliases.addObject(), name, alias.getKey(), alias.getValue(), unused.get(alias.getKey()));
        }
      }
      int others = 0;
      int othersDown = 0;
      for (ScopeHealth s : own.values()) {
        boolean down = scopeTier.apply(s) != Tier.T0; // the tier in force here, the published one when shared
        others++;
        othersDown += down ? 1 : 0;
        if (s.alias().equals(TierBoard.OTHER_MODELS) || down && othersDown <= TierBoard.MAX_LISTED) {
          scopeStatus(aliases.addObject(), s, decidesHere);
        }
      }
      ObjectNode other = f.putObject("other_models");
      other.put("tier", otherModelsTier.apply(name).name());
      other.put("scopes", others);
      other.put("below_t0", othersDown);
    });
    return all;
  }

  /**
   * The row of a configured alias this replica has no scope of, whose tier in force is {@code
   * automatic} (below T0: published by the lease holder): what a request through it would get here.
   */
  private void publishedStatus(ObjectNode a, String feature, String alias, List<Target> chain, Tier automatic) {
    a.put("alias", alias);
    ArrayNode targets = a.putArray("targets");
    chain.forEach(t -> targets.add(t.id()));
    boolean forced = forceReason.apply(feature) != null;
    a.put("tier", (forced ? tier.apply(feature) : automatic).name());
    a.put("automatic", automatic.name());
    a.put("forced", forced);
    a.put("healthy_for_ms", 0L);
    putIfKnown(a, "cause", publishedCause.apply(feature, alias));
  }

  /**
   * An alias row from this replica's scope. {@code decidesHere} false (another replica holds the
   * lease): the tiers are the published ones, and what this replica's own controller last decided or
   * changed (when it held the lease, or never) is left out: {@code last_reason}, {@code flaps},
   * {@code hold_down_ms}, {@code last_transition}; {@code cause} is the one the holder published.
   */
  private void scopeStatus(ObjectNode a, ScopeHealth scope, boolean decidesHere) {
    TierController.Status s = scope.controller().status();
    a.put("alias", scope.alias());
    ArrayNode targets = a.putArray("targets");
    scope.targets().forEach(t -> targets.add(t.id()));
    // what a request through this alias gets: the feature's force while there is one (newcomer trial, session 12:
    // a feature forced to T3 listed each alias at T0), else the scope's own tier; "automatic" is the latter
    Tier automatic = scopeTier.apply(scope);
    boolean forced = forceReason.apply(scope.feature()) != null;
    a.put("tier", (forced ? tier.apply(scope.feature()) : automatic).name());
    a.put("automatic", automatic.name());
    a.put("forced", forced);
    a.put("healthy_for_ms", s.healthyRun().toMillis());
    if (!decidesHere) {
      putIfKnown(a, "cause", automatic == Tier.T0 ? null : publishedCause.apply(scope.feature(), scope.alias()));
      return;
    }
    if (s.flaps() > 0) { // a step up that did not hold: the next waits longer (TierController, flaps)
      a.put("flaps", s.flaps());
      a.put("hold_down_ms", s.holdDown().toMillis());
    }
    if (s.lastDecision() != null) {
      a.put("last_reason", s.lastDecision().reason());
    }
    TierTransition t = lastTransition.get(TierBoard.key(scope.feature(), scope.alias()));
    if (t != null && automatic != Tier.T0) {
      a.put("cause", t.reason());
    }
    transition(a, t);
  }

  private static void putIfKnown(ObjectNode node, String field, String value) {
    if (value != null) {
      node.put(field, value);
    }
  }

  private void transition(ObjectNode node, TierTransition t) {
    if (t != null) {
      ObjectNode last = node.putObject("last_transition");
      last.put("from", t.from().name());
      last.put("to", t.to().name());
      last.put("reason", t.reason());
      last.put("ago_ms", (ticker.nanos() - t.atNanos()) / 1_000_000);
    }
  }

  /** The body of {@link TierBoard#targetStatus()} (its Javadoc gives the fields). */
  ObjectNode targetStatus() {
    ObjectNode out = Json.MAPPER.createObjectNode();
    Map<Target, Duration> cooling = cooldowns.snapshot();
    Set<Target> all = new java.util.TreeSet<>(java.util.Comparator.comparing(Target::id));
    all.addAll(calls.targets());
    all.addAll(cooling.keySet());
    int others = 0;
    for (Target target : all) {
      SliSnapshot s = calls.snapshot(target);
      if (!calls.known(target)
          && (!cooling.containsKey(target) && s.serverErrors() + s.rateLimited() == 0
              || ++others > TierBoard.MAX_LISTED)) {
        continue;
      }
      ObjectNode t = out.putObject(target.id());
      t.put("calls", s.total());
      t.put("server_error_share", round(s.serverErrorRate()));
      t.put("rate_limited_share", round(s.rateLimitedRate()));
      if (s.p99Millis() > 0) {
        t.put("p99_ms", s.p99Millis());
      } else {
        t.putNull("p99_ms"); // no streamed first token timed (JSON answers are no latency sample): not 0 ms
      }
      t.put("cooling_ms", cooling.getOrDefault(target, Duration.ZERO).toMillis());
    }
    return out;
  }

  private static double round(double value) {
    return Math.round(value * 1000) / 1000.0;
  }
}
