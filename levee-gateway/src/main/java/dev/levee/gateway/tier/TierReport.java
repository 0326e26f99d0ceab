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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

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
  private final Predicate<String> configured;
  private final Function<String, Tier> tier;
  private final Function<String, Tier> evaluated;
  private final Function<String, Tier> otherModelsTier;
  private final Function<String, Duration> forcedRemaining;
  private final Function<String, String> forceReason;
  private final Function<ScopeHealth, Tier> scopeTier;
  /** Each configured alias's place in the config (its {@code models:} order). */
  private final Map<String, Integer> configOrder;

  /**
   * @param scopeTier a scope's own (automatic) tier: its controller's, or the shared one
   * @param configOrder the configured aliases in config order: {@code aliases} lists them first, in it
   */
  TierReport(Map<String, FeatureTier> features, Map<TierBoard.ScopeKey, ScopeHealth> scopes,
      Map<String, TierTransition> lastTransition, Ticker ticker, TargetWindows calls, RateLimitCooldowns cooldowns,
      Predicate<String> configured, Function<String, Tier> tier, Function<String, Tier> evaluated,
      Function<String, Tier> otherModelsTier, Function<String, Duration> forcedRemaining,
      Function<String, String> forceReason, Function<ScopeHealth, Tier> scopeTier, List<String> configOrder) {
    this.configOrder = new java.util.HashMap<>();
    configOrder.forEach(alias -> this.configOrder.putIfAbsent(alias, this.configOrder.size()));
    this.features = features;
    this.scopes = scopes;
    this.lastTransition = lastTransition;
    this.ticker = ticker;
    this.calls = calls;
    this.cooldowns = cooldowns;
    this.configured = configured;
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
      ObjectNode f = all.addObject();
      f.put("feature", name);
      f.put("priority", feature.priority().name().toLowerCase(Locale.ROOT));
      f.put("tier", tier.apply(name).name());
      f.put("automatic", evaluated.apply(name).name());
      f.put("forced_remaining_ms", forcedRemaining.apply(name).toMillis());
      String forced = forceReason.apply(name);
      if (forced != null) {
        f.put("forced_reason", forced); // the last force's words: a new force replaces them
      }
      transition(f, lastTransition.get(name));
      ArrayNode aliases = f.putArray("aliases");
      int others = 0;
      int othersDown = 0;
      // configured aliases first, in config order, then the names clients chose, by name
      for (ScopeHealth s : scopes.values().stream().filter(s -> s.feature().equals(name))
          .sorted(java.util.Comparator.comparingInt((ScopeHealth h) -> configOrder.getOrDefault(h.alias(), Integer.MAX_VALUE))
              .thenComparing(ScopeHealth::alias)).toList()) {
        boolean client = !configured.test(s.alias());
        boolean down = s.controller().current() != Tier.T0;
        others += client ? 1 : 0;
        othersDown += client && down ? 1 : 0;
        if (!client || s.alias().equals(TierBoard.OTHER_MODELS) || down && othersDown <= TierBoard.MAX_LISTED) {
          scopeStatus(aliases.addObject(), s);
        }
      }
      ObjectNode other = f.putObject("other_models");
      other.put("tier", otherModelsTier.apply(name).name());
      other.put("scopes", others);
      other.put("below_t0", othersDown);
    });
    return all;
  }

  private void scopeStatus(ObjectNode a, ScopeHealth scope) {
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
