package dev.levee.gateway.tier;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Gate;
import dev.levee.core.breaker.Transition;
import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.Target;
import dev.levee.core.cooldown.CooldownPlan;
import dev.levee.core.cooldown.RateLimitCooldowns;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.sli.SliOutcome;
import dev.levee.core.sli.SliSnapshot;
import dev.levee.core.slo.SloTracker;
import dev.levee.core.tier.Priority;
import dev.levee.core.tier.Tier;
import dev.levee.core.tier.TierController;
import dev.levee.core.tier.TierControllerConfig;
import dev.levee.core.tier.TierDecider;
import dev.levee.core.tier.TierThresholds;
import dev.levee.core.tier.TierTransition;
import dev.levee.core.time.Scheduler;
import dev.levee.core.time.Sleeper;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.Aliases;
import dev.levee.gateway.cluster.SharedTiers;
import dev.levee.gateway.config.Feature;
import dev.levee.gateway.config.GatewayConfig;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The health of every target and the degradation tier of every feature (issue 10, "health has a
 * scope").
 *
 * <ul>
 *   <li><b>Per target</b> (upstream + model): an SLI window over its API calls ({@link
 *       TargetWindows}) and its rate-limit cooldown ({@link RateLimitCooldowns}), fed as a {@link
 *       CallObserver} of the fallback chain.
 *   <li><b>Per feature and alias</b> (a {@link ScopeHealth}): what the clients saw, and a {@link
 *       TierController} deciding from it (the error-budget burn) and from the API calls of the
 *       alias's targets and the feature's reduced target (the step-down signals). A request's
 *       tier is its scope's: a fault confined to one target never changes what requests that do
 *       not use it get. Scopes are made on first use. Every configured alias has its own scope
 *       in every feature (their number is bounded by the configuration); model names no alias
 *       names (clients choose them) get one while fewer than {@value #MAX_CLIENT_SCOPES} exist,
 *       after which they share their feature's {@value #OTHER_MODELS} scope — never a configured
 *       alias's, so no number of client-chosen names can degrade a configured alias. A
 *       client-chosen name's scope that sits at T0 unused for {@link #clientScopeIdle()} (the SLO's
 *       long burn window, its bucket and the SLI window: it remembers nothing by then) is dropped
 *       when a new name needs a slot, so the bound is a bound on names in use, not on names ever
 *       seen; a scope below T0 is never dropped.
 *   <li><b>Per feature</b> ({@link FeatureTier}): a force for drills, and "the feature's tier" —
 *       the worst of its configured aliases' scopes — for {@code /health}, {@code /admin/tiers}
 *       and metrics; the scopes of client-chosen names are reported apart ({@link
 *       #otherModelsTier}), so a tenant's invented names never make a feature look degraded.
 * </ul>
 *
 * <p>Transitions are logged, counted, kept for {@code /health}, and posted to the optional
 * webhook. Thread-safe.
 */
public final class TierBoard implements CallObserver, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TierBoard.class);

  /**
   * Scopes of model names no alias names, all features together; each holds SLI windows of 12
   * histograms (~100 KB). Configured aliases do not count.
   */
  public static final int MAX_CLIENT_SCOPES = 32;

  /** The scope that model names no alias names share in a feature once {@value #MAX_CLIENT_SCOPES} scopes exist. */
  public static final String OTHER_MODELS = "*";

  /** Client-chosen names below T0 that {@link #status()} lists by name, per feature; the rest are counted. */
  static final int MAX_LISTED = 10;

  private final GatewayConfig config;
  /** The configured aliases' chains, and where a name no alias names goes: as the request path routes them. */
  private final Aliases routes;
  private final Ticker ticker;
  private final Sleeper sleeper;
  private final InstantSource wall;
  private final Webhook webhook;
  private final Scheduler scheduler;
  private final Duration every;
  private volatile Scheduler.Scheduled next;
  private volatile boolean closed;
  private final TierDecider decider;
  private final TierControllerConfig controllerConfig;
  private final TargetWindows calls;
  private final RateLimitCooldowns cooldowns;
  private final Map<String, FeatureTier> features = new TreeMap<>();
  private final Map<ScopeKey, ScopeHealth> scopes = new ConcurrentHashMap<>();
  private final ClientScopes clients;
  private final Map<String, TierTransition> lastTransition = new ConcurrentHashMap<>();
  private final AtomicLong transitions = new AtomicLong();
  private volatile SharedTiers shared; // null: this process decides alone
  private final TrialProbes trials;
  private final TierReport report;
  private final LeaseTakeover takeover;

  /**
   * @param sleeper waits for a cooling target (virtual time in tests)
   * @param scheduler evaluates every scope each {@code tiers.evaluate-every} (a {@code
   *     ManualClock} in tests: evaluations happen as virtual time passes)
   */
  public TierBoard(GatewayConfig config, Ticker ticker, Sleeper sleeper, InstantSource wall, Scheduler scheduler) {
    this.config = config;
    this.ticker = ticker;
    this.sleeper = sleeper;
    this.wall = wall;
    this.webhook = config.tiers().webhook().isEmpty() ? null : new Webhook(config.tiers().webhook());
    this.controllerConfig = new TierControllerConfig(config.tiers().evaluateEvery(),
        config.tiers().healthyFor(), TierControllerConfig.DEFAULT.settleAfterDown(),
        config.tiers().window().multipliedBy(2), TierControllerConfig.DEFAULT.maxHealthyFor());
    this.decider = new TierDecider(TierThresholds.DEFAULT.withMinRequests(config.tiers().minVolume())
        .withP99(config.tiers().p99Down().toMillis(), config.tiers().healthyP99().toMillis()));
    this.routes = new Aliases(config);
    Set<Target> known = new LinkedHashSet<>(routes.configuredTargets());
    config.features().values().forEach(f -> reducedTarget(f).ifPresent(known::add));
    this.cooldowns = new RateLimitCooldowns(ticker, known); // configured targets always cool, past the bound
    this.calls = new TargetWindows(known, config.tiers().window(), config.tiers().evaluateEvery(), ticker);
    Duration clientIdle = SloTracker.LONG_WINDOW.plus(SloTracker.DEFAULT_BUCKET).plus(config.tiers().window());
    long start = ticker.nanos();
    Map<String, Feature> all = new TreeMap<>(config.features());
    all.putIfAbsent(Feature.DEFAULT_NAME, config.feature(null));
    all.forEach((name, feature) -> features.put(name, new FeatureTier(name, feature.priority(), ticker,
        () -> evaluated(name), this::transitioned)));
    this.scheduler = scheduler;
    this.every = config.tiers().evaluateEvery();
    this.trials = new TrialProbes(ticker, every);
    this.clients = new ClientScopes(scopes, this::configured, this::newScope, this::scopeTier, this::dropped, every,
        clientIdle, start);
    Map<String, List<Target>> chains = new java.util.LinkedHashMap<>();
    routes.names().forEach(alias -> chains.put(alias, routes.resolve(alias).targets()));
    this.report = new TierReport(features, scopes, lastTransition, ticker, calls, cooldowns, this::tier,
        this::evaluated, this::otherModelsTier, this::forcedRemaining, this::forceReason, this::scopeTier, chains,
        this::unservedBelowT0, this::tierLease, this::publishedCause);
    this.takeover = new LeaseTakeover(routes.names(), this::configuredScope,
        this::adoptedClientScope);
    next = scheduler.schedule(every, this::tick);
  }

  /**
   * Shares tier decisions with the other replicas of a cluster from now on: a feature's scopes are
   * evaluated only on the replica holding the feature's lease, which publishes each scope's tier;
   * every replica serves the published tiers, and forces ({@link #force}) reach every replica.
   * Call once, at start-up.
   */
  public void shareThrough(SharedTiers tiers) {
    this.shared = java.util.Objects.requireNonNull(tiers, "tiers");
  }

  /**
   * The feature's tier, as {@code /health} and {@code levee_tier} show it: the forced one, else the
   * worst of its configured aliases' scopes (when tiers are shared, each alias's published tier,
   * whether or not this replica served it: the tier in force on the cluster). Scopes of model names no alias names do not count
   * (see {@link #otherModelsTier}): one tenant's invented names never make the feature look
   * degraded. Unknown features follow {@code default}.
   */
  public Tier tier(String feature) {
    FeatureTier f = controller(feature);
    Tier pinned = pinned(f);
    return pinned != null ? pinned : evaluated(f.name());
  }

  /**
   * The worst tier of the feature's scopes of model names no alias names (their own and the
   * shared {@value #OTHER_MODELS} one), or the forced tier; T0 when there are none. For {@code
   * /health} ({@code other_models.tier}) and {@code levee_tier_other_models}.
   */
  public Tier otherModelsTier(String feature) {
    FeatureTier f = controller(feature);
    Tier pinned = pinned(f);
    return pinned != null ? pinned : worst(f.name(), false);
  }

  /**
   * Forces {@code feature} to {@code tier} for {@code duration} (the admin API), on every replica
   * when tiers are shared (written there first, so a request in between never reads the shared
   * state without it while this replica's own force is set).
   */
  public void force(String feature, Tier tier, Duration duration) {
    FeatureTier f = controller(feature);
    SharedTiers cluster = shared;
    if (cluster != null) {
      cluster.force(f.name(), tier, duration);
    }
    f.force(tier, duration);
  }

  /**
   * Why {@code f} is forced to {@code pinned}: this replica's last force's words ({@link
   * FeatureTier#forceReason}), or, for a force set through another replica, that it was.
   */
  private static String forceReason(FeatureTier f, Tier pinned) {
    String mine = f.forceReason();
    return mine != null && f.forced() == pinned ? mine : "forced to " + pinned + " through another replica";
  }

  /**
   * Time left on {@code feature}'s force, zero when none: the cluster's when tiers are shared
   * (whichever replica set it), else this replica's.
   */
  Duration forcedRemaining(String feature) {
    FeatureTier f = controller(feature);
    SharedTiers cluster = shared;
    return cluster == null ? f.forcedRemaining() : cluster.forcedRemaining(f.name());
  }

  /** Why {@code feature} is forced, or null when it is not. */
  String forceReason(String feature) {
    FeatureTier f = controller(feature);
    Tier pinned = pinned(f);
    return pinned == null ? null : forceReason(f, pinned);
  }

  /** Ends a force early, on every replica when tiers are shared, whichever replica set it. */
  public void clearForce(String feature) {
    FeatureTier f = controller(feature);
    SharedTiers cluster = shared;
    if (cluster != null) {
      cluster.unforce(f.name());
    }
    f.clearForce();
  }

  /**
   * The feature's force; null when none. Alone: this replica's. Shared: the cluster's, which wins
   * over this replica's own copy; a force lifted on another replica (or expired in Redis) ends this
   * replica's copy too, so every replica returns to its evaluated tier (newcomer trial: the replica
   * that set a force kept serving it after another replica lifted it).
   */
  private Tier pinned(FeatureTier f) {
    SharedTiers cluster = shared;
    if (cluster == null) {
      return f.forced();
    }
    Tier pinned = cluster.forced(f.name()).orElse(null);
    if (pinned == null && f.forced() != null) {
      f.clearForce();
    }
    return pinned;
  }

  /**
   * Reads the targets' circuit breakers from now on (call once, at start-up): a scope below T0 steps
   * up only when the circuits of the tier above are not open and untested ({@link
   * ScopeHealth#stepUpHeld}), and its requests probe them ({@link #probe}).
   */
  public void watchCircuits(java.util.function.Function<Target, Gate> gates) {
    trials.watch(gates);
  }

  /**
   * Whether a request of {@code feature} through {@code alias}, admitted at {@code tier} (T1 or T2,
   * not forced), goes to the targets of the tier above instead, as the trial of their circuit: one
   * of those targets has a circuit whose trial may be admitted now (OPEN with its open period over,
   * or HALF_OPEN with a free trial slot), and no other request claimed that trial within the last
   * {@code tiers.evaluate-every}. At T1 the request then goes through the alias's full chain (T0);
   * at T2 to the reduced target instead of a cached answer. Without it nothing calls a target the
   * tier skips — at T2 the cache answers everything — and its circuit stays open, trial-ready, for
   * as long as the burn remembers the outage (newcomer trial: about 4.5 min after a 70 s outage).
   * The client is answered either way: by the trial, or, when it fails, by the fallback or the
   * last-resort cache.
   */
  public boolean probe(String feature, String alias, Tier tier) {
    java.util.function.Function<Target, Gate> gates = trials.circuits();
    if (gates == null || (tier != Tier.T1 && tier != Tier.T2)) {
      return false;
    }
    FeatureTier f = controller(feature);
    if (pinned(f) != null) {
      return false; // an operator's force is kept: no request leaves the forced tier
    }
    ScopeHealth scope = existing(f.name(), alias);
    if (scope == null) {
      return false;
    }
    return trials.probe(gates, scope.targetsAt(tier.up()));
  }

  /**
   * A client-chosen name's scope was dropped (idle at T0): its last transition goes, and so does
   * what this replica keeps of its shared tier.
   */
  private void dropped(ScopeHealth scope) {
    lastTransition.remove(key(scope.feature(), scope.alias()));
    SharedTiers cluster = shared;
    if (cluster != null) {
      cluster.forget(sharedName(scope));
    }
  }

  /** A scope's name in the shared tiers ({@link SharedTiers#scopeName}: its Redis key {@code tier:{feature/alias}}). */
  static String sharedName(ScopeHealth scope) {
    return SharedTiers.scopeName(scope.feature(), scope.alias());
  }

  /**
   * The tier in force for {@code feature} through {@code alias} on this replica without a scope of
   * the pair (for {@code /admin/tiers}, gauges and the queue's pause gate): when shared and Redis
   * answers, the one the feature's evaluator published (a request through the alias here would get
   * it); else T0, as a scope made now starts (while Redis is away nothing re-evaluates the pair
   * here: {@link SharedTiers#currentIfShared}).
   */
  private Tier publishedTier(String feature, String alias) {
    SharedTiers cluster = shared;
    return cluster == null ? Tier.T0 : cluster.currentIfShared(SharedTiers.scopeName(feature, alias));
  }

  /**
   * The configured aliases of {@code feature} this replica has no scope of (no request used them
   * here) whose tier in force ({@link #publishedTier}) is below T0, in config order; empty when tiers
   * are not shared. What {@code /admin/tiers}, {@link #tier(String)} and {@link #degraded()} add to
   * the scopes this replica has.
   */
  private Map<String, Tier> unservedBelowT0(String feature) {
    Map<String, Tier> out = new java.util.LinkedHashMap<>();
    if (shared != null) {
      for (String alias : routes.names()) {
        Tier tier = scopes.containsKey(new ScopeKey(feature, alias)) ? Tier.T0 : publishedTier(feature, alias);
        if (tier != Tier.T0) {
          out.put(alias, tier);
        }
      }
    }
    return out;
  }

  /**
   * The cluster's shared tiers when another replica holds {@code feature}'s tier lease — this one
   * serves what that holder published, and its own controllers' last decisions are not in force —
   * else null (no {@code cluster:}, this replica holds the lease, or Redis is away: it decides alone).
   */
  private SharedTiers decidedElsewhere(String feature) {
    SharedTiers cluster = shared;
    return cluster == null || cluster.holds(feature).orElse(true) ? null : cluster;
  }

  /** Why the lease holder put {@code feature}'s {@code alias} in its published tier; null when unknown or alone. */
  private String publishedCause(String feature, String alias) {
    SharedTiers cluster = shared;
    return cluster == null ? null : cluster.cause(SharedTiers.scopeName(feature, alias));
  }

  /** {@code tier_lease} of a feature this replica holds the tier lease of: it evaluates and publishes. */
  static final String LEASE_HELD = "held";

  /**
   * {@code tier_lease} of a feature another replica holds the lease of (or, for a moment, none
   * does): this replica serves the tiers that one published and evaluates nothing.
   */
  static final String LEASE_ELSEWHERE = "elsewhere";

  /** {@code tier_lease} of a feature this replica decides alone: no {@code cluster:}, or Redis away. */
  static final String LEASE_ALONE = "alone";

  /**
   * Who decides {@code feature}'s tiers, as this replica sees it: {@value #LEASE_HELD}, {@value
   * #LEASE_ELSEWHERE} or {@value #LEASE_ALONE}. Reads the lease without taking it.
   */
  String tierLease(String feature) {
    SharedTiers cluster = shared;
    if (cluster == null) {
      return LEASE_ALONE;
    }
    return cluster.holds(controller(feature).name()).map(held -> held ? LEASE_HELD : LEASE_ELSEWHERE)
        .orElse(LEASE_ALONE);
  }

  /** A scope's tier: its controller's, or, when shared, the one its feature's evaluator published. */
  private Tier scopeTier(ScopeHealth scope) {
    SharedTiers cluster = shared;
    return cluster == null ? scope.controller().current() : cluster.current(sharedName(scope));
  }

  /**
   * The tier of a request of {@code feature} through {@code alias}: the feature's force, else what
   * the health of this feature through this alias decided.
   *
   * @param targets the alias's chain, in order
   */
  public Tier tier(String feature, String alias, List<Target> targets) {
    FeatureTier f = controller(feature);
    Tier pinned = pinned(f);
    return pinned != null ? pinned : scopeTier(scope(f.name(), alias, targets));
  }

  /**
   * The tier of {@code feature} through {@code alias} as it stands, without making a scope (for
   * {@code levee_tier_alias}): the feature's force, else the pair's tier in force here — when tiers
   * are shared, the one the feature's lease holder published, whether or not a request used the pair
   * on this replica; alone, T0 for a pair no request has used yet.
   */
  public Tier currentTier(String feature, String alias) {
    FeatureTier f = controller(feature);
    Tier pinned = pinned(f);
    if (pinned != null) {
      return pinned;
    }
    ScopeHealth scope = scopes.get(new ScopeKey(f.name(), alias));
    return scope != null ? scopeTier(scope) : publishedTier(f.name(), alias);
  }

  /**
   * Why a request of {@code feature} through {@code alias} is below T0: the reason of the last
   * transition of its scope (the target or signal that moved it, e.g. {@code "alias s: emu/emu-529:
   * 5xx 100.0% >= 2.0%: one step down, T0 -> T1"}), or of the feature's force. When another replica
   * holds the feature's tier lease, the cause that holder published with the tier in force ({@link
   * SharedTiers#cause}), not this replica's own last transition. Null at T0 or when nothing is known.
   */
  public String cause(String feature, String alias) {
    FeatureTier f = controller(feature);
    Tier pinned = pinned(f);
    if (pinned != null) {
      return forceReason(f, pinned);
    }
    ScopeHealth scope = existing(f.name(), alias);
    SharedTiers elsewhere = decidedElsewhere(f.name());
    if (elsewhere != null) {
      String name = scope != null ? sharedName(scope) : SharedTiers.scopeName(f.name(), alias);
      return elsewhere.current(name) == Tier.T0 ? null : elsewhere.cause(name);
    }
    if (scope == null || scope.controller().current() == Tier.T0) {
      return null;
    }
    TierTransition t = lastTransition.get(key(scope.feature(), scope.alias()));
    return t == null ? null : t.reason();
  }

  /**
   * A feature-and-alias pair below T0 (or a feature forced below T0, {@code alias} null): what holds
   * that pair's queued work, and why.
   *
   * @param alias the alias, {@value #OTHER_MODELS} for the shared scope of client-chosen model names, or
   *     null when the whole feature is forced
   * @param reason the scope's last evaluation (why it holds or stepped down), or the force's reason;
   *     null when nothing was evaluated yet, or when another replica evaluates it (the feature's
   *     tier lease is elsewhere)
   * @param cause the transition that put it below T0 (when another replica evaluates it, as that
   *     replica published it), or null
   */
  public record Degraded(String feature, String alias, Tier tier, String reason, String cause) {}

  /**
   * Every feature forced below T0 ({@code alias} null) and every feature-and-alias scope whose
   * tier is below T0, for the queue's pause gate: each pair's queued work is held by its own tier,
   * not by its feature's worst alias ("degrade only what is sick"). When tiers are shared, the
   * tiers in force on the cluster: each scope's published tier, and every configured alias this
   * replica has no scope of (never served here) whose published tier is below T0, so a replica's
   * workers hold work the lease holder's tiers hold. A model name a client chose is listed once this
   * replica has a scope of it (its first request or job here: a job's run then finds the tier itself).
   */
  public List<Degraded> degraded() {
    List<Degraded> out = new ArrayList<>();
    Set<String> pinnedFeatures = new HashSet<>();
    features.forEach((name, f) -> {
      Tier pinned = pinned(f);
      if (pinned != null) {
        pinnedFeatures.add(name);
        if (pinned != Tier.T0) {
          out.add(new Degraded(name, null, pinned, forceReason(f, pinned), null));
        }
      }
    });
    for (ScopeHealth scope : scopes.values()) {
      if (pinnedFeatures.contains(scope.feature())) {
        continue;
      }
      Tier tier = scopeTier(scope);
      SharedTiers elsewhere = tier == Tier.T0 ? null : decidedElsewhere(scope.feature());
      if (elsewhere != null) {
        out.add(new Degraded(scope.feature(), scope.alias(), tier, null, elsewhere.cause(sharedName(scope))));
      } else if (tier != Tier.T0) {
        TierController.Status s = scope.controller().status();
        TierTransition t = lastTransition.get(key(scope.feature(), scope.alias()));
        out.add(new Degraded(scope.feature(), scope.alias(), tier,
            s.lastDecision() == null ? null : s.lastDecision().reason(), t == null ? null : t.reason()));
      }
    }
    for (String feature : features.keySet()) { // configured aliases never served here: their published tiers
      if (!pinnedFeatures.contains(feature)) {
        unservedBelowT0(feature).forEach((alias, tier) ->
            out.add(new Degraded(feature, alias, tier, null, publishedCause(feature, alias))));
      }
    }
    return out;
  }

  /** Every configured feature (the default one included) by name, each with the configured aliases. */
  public Map<String, List<String>> configuredScopes() {
    Map<String, List<String>> out = new TreeMap<>();
    features.keySet().forEach(f -> out.put(f, List.copyOf(new java.util.TreeSet<>(config.models().keySet()))));
    return out;
  }

  /** The feature (force, overall tier); unknown features get the {@code default} one. */
  public FeatureTier controller(String feature) {
    FeatureTier f = feature == null ? null : features.get(feature);
    return f != null ? f : features.get(Feature.DEFAULT_NAME);
  }

  /** Whether {@code feature} is configured (the default feature always is). */
  public boolean knows(String feature) {
    return features.containsKey(feature);
  }

  /** The rate-limit cooldowns of every target. */
  public RateLimitCooldowns cooldowns() {
    return cooldowns;
  }

  /** Evaluates every scope once. */
  public void evaluateAll() {
    SharedTiers cluster = shared;
    if (cluster == null) {
      scopes.values().forEach(s -> s.controller().evaluate());
      return;
    }
    // one evaluator per feature across the cluster: the lease holder evaluates and publishes
    Map<String, List<ScopeHealth>> byFeature = new TreeMap<>();
    scopes.values().forEach(s -> byFeature.computeIfAbsent(s.feature(), k -> new ArrayList<>()).add(s));
    byFeature.forEach((feature, list) -> {
      SharedTiers.Lease lease = cluster.lease(feature);
      if (lease != SharedTiers.Lease.ELSEWHERE) {
        for (ScopeHealth s : takeover.prepare(cluster, feature, list, lease)) { // from the published tiers
          s.controller().evaluate();
          Tier now = s.controller().current();
          cluster.publish(sharedName(s), now, causeOf(s, now));
        }
      }
    });
  }

  /**
   * The reason of {@code scope}'s last transition on this replica when it put the scope in {@code
   * tier}, published with the tier; else null (none here: a tier adopted on taking the lease over).
   */
  private String causeOf(ScopeHealth scope, Tier tier) {
    TierTransition t = tier == Tier.T0 ? null : lastTransition.get(key(scope.feature(), scope.alias()));
    return t != null && t.to() == tier ? t.reason() : null;
  }

  /** One scheduled evaluation, then the next one {@code evaluate-every} later. */
  private void tick() {
    if (closed) {
      return;
    }
    try {
      evaluateAll();
    } catch (RuntimeException e) {
      LOG.error("tier evaluation failed", e);
    }
    if (!closed) {
      next = scheduler.schedule(every, this::tick);
    }
  }

  // ---- what the clients saw (one call per client request, from the pipeline) ----

  /**
   * A client request was answered by a target (after any retries and fallbacks: a success for
   * the SLO) or from the cache at T2; {@code latency} is a stream's time to its first token,
   * retries included, or null when the answer gives no latency sample (a JSON answer, whose time
   * grows with its length; a cached answer).
   */
  public void answered(String feature, String alias, Duration latency) {
    ScopeHealth scope = existing(feature, alias);
    if (scope != null) {
      scope.used(ticker.nanos());
      scope.answered(latency);
    }
  }

  /** A client request got no answer from any target (an error, or a last-resort cached answer). */
  public void failed(String feature, String alias, Duration latency) {
    ScopeHealth scope = existing(feature, alias);
    if (scope != null) {
      scope.used(ticker.nanos());
      scope.failed(latency);
    }
  }

  // ---- cooldowns: the planner's hook ----

  /**
   * The targets a request may try now: cooling targets left out; when every target cools, waits
   * (interruptibly, on the board's sleeper) for the first ready one if that wait is at most {@code
   * maxWait} and fits the deadline.
   *
   * @param maxWait the longest cooldown sat out ({@code policy.retry.max-retry-after})
   * @return {@link CooldownPlan.Go} after any wait, or {@link CooldownPlan.Refuse} when the wait
   *     is too long or does not fit (answer 429 with its {@code retry-after}, see {@link #refusal})
   * @throws InterruptedException when the client went away during the wait
   */
  public CooldownPlan awaitCooldowns(List<Target> targets, Deadline deadline, Duration minAttemptTime,
      Duration maxWait) throws InterruptedException {
    CooldownPlan plan = cooldowns.plan(targets, deadline, minAttemptTime, maxWait);
    if (plan instanceof CooldownPlan.Go go && go.waitFirst().isPositive()) {
      sleeper.sleep(go.waitFirst());
    }
    return plan;
  }

  /** A refused plan as the chain's "exhausted" result: a 429 {@code rate_limit_error} with its {@code retry-after}. */
  public static <T> ChainResult<T> refusal(CooldownPlan.Refuse refused) {
    long seconds = Math.max(1, (refused.retryAfter().toMillis() + 999) / 1000);
    Failure failure = new Failure(FailureKind.RATE_LIMITED, 429, "rate_limit_error",
        "Every target is cooling after a rate limit (" + seconds + " s left); the wait is longer than "
            + "max-retry-after or does not fit the deadline",
        Optional.of(refused.retryAfter()), Optional.of(false));
    return new ChainResult.Exhausted<>(failure, null, Optional.of(refused.retryAfter()), false,
        List.of(new ChainResult.TargetReport(refused.target(), ChainResult.Why.COOLING, 0, null, refused.retryAfter())),
        List.of());
  }

  // ---- the targets' API calls ----

  @Override
  public void onSuccess(Target target, Duration latency) {
    onSuccess(target, latency, false);
  }

  /**
   * Counts a successful call; its latency is a sample of the p99 signal only when it is a time to
   * first token. A JSON answer's time grows with its length (seconds for a long Opus answer from a
   * healthy API), so it would step healthy features down; a JSON call that hangs is caught by its
   * timeouts, which count as failures.
   */
  @Override
  public void onSuccess(Target target, Duration latency, boolean firstToken) {
    calls.record(target, SliOutcome.SUCCESS, firstToken ? latency : null);
  }

  @Override
  public void onFailure(Target target, Failure failure, Duration latency) {
    SliOutcome outcome = SliOutcome.of(failure.kind());
    if (outcome != null) {
      calls.record(target, outcome, latency);
    }
    cooldowns.onFailure(target, failure, latency);
  }

  /**
   * A circuit breaker changed state (a listener of every breaker). When a target's circuit closes
   * after its half-open trials succeeded, the target has recovered: its SLI window forgets the calls
   * made before the close, as the breaker forgets its failures. A step down on a target's signals
   * needs failures newer than its last close, so a backlog drained after an outage never lifts the
   * outage's few calls over the minimum volume and steps a healthy target's aliases down.
   */
  public void onTransition(Transition t) {
    if (t.from() == CircuitState.HALF_OPEN && t.to() == CircuitState.CLOSED) {
      Target target;
      try {
        target = Target.parse(t.breaker());
      } catch (IllegalArgumentException e) {
        return; // not a target's breaker
      }
      calls.recovered(target);
      LOG.info("target {} recovered ({}): its SLI window starts afresh", t.breaker(), t.reason());
    }
  }

  // ---- scopes ----

  /**
   * The scope of a request of this pair, made on first use and marked used: its own for a
   * configured alias; for a name no alias names its own while fewer than {@value
   * #MAX_CLIENT_SCOPES} exist (after dropping idle ones, {@link ClientScopes}), else the
   * feature's {@value #OTHER_MODELS} scope, which reads the upstream's shared call window.
   */
  private ScopeHealth scope(String feature, String alias, List<Target> targets) {
    long now = ticker.nanos();
    ScopeKey key = new ScopeKey(feature, alias);
    ScopeHealth scope = scopes.get(key);
    if (scope == null) {
      scope = configured(alias) ? scopes.computeIfAbsent(key, k -> newScope(feature, alias, targets))
          : clients.clientScope(feature, alias, targets, now);
    }
    scope.used(now);
    return scope;
  }

  /** The scope of a configured alias in {@code feature}, made (not marked used) when there is none yet. */
  private ScopeHealth configuredScope(String feature, String alias) {
    return scopes.computeIfAbsent(new ScopeKey(feature, alias), k -> newScope(feature, alias,
        routes.resolve(alias).targets()));
  }

  /**
   * The scope of a client-chosen name (or the shared {@value #OTHER_MODELS} one) in {@code feature}
   * for a new lease holder to adopt its published tier into, made (not marked used) through the bound
   * the request path uses; null past the bound. Its target is the one {@link Aliases} routes the
   * name to.
   */
  private ScopeHealth adoptedClientScope(String feature, String alias) {
    List<Target> targets = routes.resolve(alias).targets();
    return alias.equals(OTHER_MODELS) ? clients.sharedScope(feature, targets)
        : clients.ownScope(feature, alias, targets, ticker.nanos());
  }

  private boolean configured(String alias) {
    return config.models().containsKey(alias);
  }

  /**
   * How long a scope of a client-chosen name stays unused at T0 before it may be dropped: the SLO
   * tracker's long burn window (1 h) and its bucket (1 min, which the window's edge pro-rates),
   * plus the SLI window ({@code tiers.window}, 60 s): by then its windows are empty and a fresh
   * scope reads the same. 62 min with the defaults.
   */
  public Duration clientScopeIdle() {
    return clients.clientScopeIdle();
  }

  /** Scopes of client-chosen names dropped so far for being idle at T0 (for {@code levee_state_evictions}). */
  public long scopeEvictions() {
    return clients.scopeEvictions();
  }

  /** Windows of client-named targets dropped so far for being idle (for {@code levee_state_evictions}). */
  public long windowEvictions() {
    return calls.evictions();
  }

  /** Call windows held now, configured targets' included (for tests of the bound). */
  int windowCount() {
    return calls.targets().size();
  }

  /**
   * Scopes held now (for tests of the bound): a configured alias's in each feature it was asked
   * through, at most {@value #MAX_CLIENT_SCOPES} of client-chosen names, and each feature's {@value
   * #OTHER_MODELS} scope once used.
   */
  int scopeCount() {
    return scopes.size();
  }

  private ScopeHealth newScope(String feature, String alias, List<Target> targets) {
    Feature f = config.feature(feature);
    Target reduced = reducedTarget(f).orElse(targets.getLast()); // as Admission's T1
    ScopeHealth scope = new ScopeHealth(feature, alias, targets, reduced, f.priority(), decider, controllerConfig,
        config.tiers().window(), config.tiers().slo(), calls, trials::gate, ticker);
    scope.controller().onTransition(t -> transitioned(new TierTransition(t.feature(), t.from(), t.to(),
        "alias " + alias + ": " + t.reason(), t.atNanos()), alias));
    return scope;
  }

  /**
   * The scope a request of this pair was admitted with (for a client-chosen name past the bound,
   * the shared {@value #OTHER_MODELS} one; never for a configured alias), or null.
   */
  private ScopeHealth existing(String feature, String alias) {
    String name = controller(feature).name();
    ScopeHealth scope = scopes.get(new ScopeKey(name, alias));
    return scope != null || configured(alias) ? scope : scopes.get(new ScopeKey(name, OTHER_MODELS));
  }

  /** A scope's key in the table: a pair, not a joined string, so a lookup builds no string. */
  record ScopeKey(String feature, String alias) {}

  static String key(String feature, String alias) {
    return feature + "\u0000" + alias;
  }

  /** The worst tier evaluation reached for any configured alias of {@code feature}. */
  private Tier evaluated(String feature) {
    return worst(feature, true);
  }

  /**
   * The worst tier of {@code feature}'s scopes of configured aliases, or of client-chosen names.
   * When tiers are shared, a configured alias this replica has no scope of counts by its published
   * tier (as {@link #currentTier} gives it).
   */
  private Tier worst(String feature, boolean configuredAliases) {
    Tier worst = Tier.T0;
    for (ScopeHealth s : scopes.values()) {
      if (s.feature().equals(feature) && configured(s.alias()) == configuredAliases) {
        worst = Tier.lowest(worst, scopeTier(s));
      }
    }
    if (configuredAliases) {
      for (Tier tier : unservedBelowT0(feature).values()) {
        worst = Tier.lowest(worst, tier);
      }
    }
    return worst;
  }

  private static Optional<Target> reducedTarget(Feature f) {
    return f.reduced() != null && f.reduced().target() != null
        ? Optional.of(new Target(f.reduced().target().upstream(), f.reduced().target().model()))
        : Optional.empty();
  }

  // ---- transitions and reports ----

  private void transitioned(TierTransition t) {
    transitioned(t, null);
  }

  private void transitioned(TierTransition t, String alias) {
    transitions.incrementAndGet();
    lastTransition.put(alias == null ? t.feature() : key(t.feature(), alias), t);
    Instant at = wall.instant();
    LOG.warn("tier {} {} -> {}: {}", t.feature(), t.from(), t.to(), t.reason());
    if (webhook != null) {
      webhook.post(t, at);
    }
  }

  /** Transitions so far, all features. */
  public long transitions() {
    return transitions.get();
  }

  /**
   * Every feature's tier, for {@code GET /admin/tiers} and {@code /health}: per feature its tier
   * (forced, else the worst of its configured aliases: {@link #tier(String)}), {@code
   * forced_remaining_ms} (the cluster's force when shared, 0 when none) and, while forced, {@code
   * forced_reason} (the last force's words), and in {@code aliases}, per alias it was used with, the tier
   * requests through it get ({@code tier}: the force while there is one, with {@code forced: true};
   * else its own), its own tier ({@code automatic}), the reason of the last decision and the cause
   * (the target or signal) of the last transition. Model names no alias names are bounded there:
   * the shared {@value #OTHER_MODELS} scope when made, and at most {@value #MAX_LISTED} names below
   * T0; {@code other_models} counts them all ({@code scopes}, {@code below_t0}) and gives their
   * worst tier ({@code tier}, {@link #otherModelsTier}), which the feature's {@code tier} does not
   * include.
   *
   * <p>Every tier shown is the one in force on this replica: when shared, the one the feature's lease
   * holder published, whichever replica answers. So a configured alias this replica has no scope of
   * is listed too while its published tier is below T0 (and counts in the feature's {@code tier}
   * and {@code automatic}), and a client-chosen name counts as below T0 by its published tier.
   * {@code tier_lease} says who decides the feature's tiers: {@value #LEASE_HELD} (this replica holds
   * the lease: it evaluates and publishes), {@value #LEASE_ELSEWHERE} (another replica does, or none
   * has lately; this one serves what was published) or {@value #LEASE_ALONE} (no {@code cluster:},
   * or Redis away: this replica decides alone). On a replica whose lease is elsewhere an alias row
   * leaves out what its own controller last decided ({@code last_reason}, {@code flaps}, {@code
   * hold_down_ms}, {@code cause}, {@code last_transition}): that is not what is in force.
   */
  public ArrayNode status() {
    return report.status();
  }

  /** {@code target}'s API calls over the SLI window: the numbers the step-down signals read. */
  public SliSnapshot targetCalls(Target target) {
    return calls.snapshot(target);
  }

  /**
   * Per target: its API calls over the SLI window (the numbers the step-down signals read) and
   * its rate-limit cooldown, for {@code /health}: every configured target, and of the others
   * (models clients named) at most {@value #MAX_LISTED} that cool or failed, by id.
   */
  public ObjectNode targetStatus() {
    return report.targetStatus();
  }

  @Override
  public void close() {
    closed = true;
    next.cancel();
    if (webhook != null) {
      webhook.close();
    }
  }
}
