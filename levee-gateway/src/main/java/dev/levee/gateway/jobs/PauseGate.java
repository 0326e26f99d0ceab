package dev.levee.gateway.jobs;

import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Gate;
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
 *   <li>an alias whose primary (the first target of its chain) has its trial in flight, though a
 *       later target could answer: the trial decides where its work goes (see <b>Trials</b>);
 *   <li>a feature and alias pair at T2 (cached) or T3 (static): that pair's interactive requests
 *       are being shed, so its queued work is too, until its tier steps back up. The pair's own
 *       tier, as interactive requests use it — not the feature's, which is its worst alias's: a
 *       sick alias holds its own work, never a healthy alias's ("degrade only what is sick");
 *   <li>a pair whose feature has {@code on-outage: queue} at T1: degraded mode queued its
 *       low-priority requests so that they do not compete for the scarce capacity; they run once
 *       the pair is back at T0;
 *   <li>a feature forced (the admin API) to T2 or T3, or to T1 when it queues: every alias.
 * </ul>
 *
 * <p><b>Trials.</b> A target whose breaker may admit a trial call now (HALF_OPEN with a slot
 * free, or OPEN with its period over) is a {@link Trial}: the workers take its trial permit
 * themselves, claim one job of the aliases waiting on it as the trial call, and leave the rest
 * queued until the trial decides. Claimed together, the others would each be refused ("circuit
 * half-open, trial in flight") and wait {@code queue.retry-delay} for nothing — or, when the alias
 * has a fallback, be answered by the fallback while a healed primary waits for its test. An alias
 * waits on a trial when
 *
 * <ul>
 *   <li>its <b>primary</b> (the first target of its chain) may admit a trial, whatever its other
 *       targets' state: its backlog runs on the primary once the trial closes the circuit, not on
 *       the fallback meanwhile (late trial, a batch after the heal: 8 of 12 jobs went to the
 *       fallback while the primary's trial ran). While that trial is in flight — the queue's, an
 *       interactive request's or another replica's — the alias's work is held;
 *   <li>or none of its targets is CLOSED and a later one may admit a trial (the first such).
 * </ul>
 *
 * <p>One trial per target, not per alias: aliases that wait on the same target share its one
 * trial job. Under {@code cluster:} the trial permit is the shared breaker's one trial of the
 * cluster, so of the replicas sharing the queue only the one holding it runs a trial job.
 *
 * <p><b>Which breakers.</b> The gate reads each target's breaker as the request path does
 * ({@link Breakers#gate}): under {@code cluster:} the breaker shared by every replica, so a
 * replica whose own breaker is closed does not drain its jobs into a target another replica's
 * failures opened for the cluster.
 */
public final class PauseGate {

  /** A feature and alias pair whose queued work is held by its own tier. */
  public record Scope(String feature, String alias) {}

  /**
   * A target whose breaker may admit a trial call now, and the aliases (or pass-through models)
   * whose queued work waits on it: one of their jobs at a time may run, as the trial call (see the
   * class comment).
   *
   * @param gate the target's breaker as the request path reads it ({@link Breakers#gate}): the
   *     workers take the trial permit from it before they claim the job
   */
  public record Trial(Target target, Gate gate, Set<String> aliases) {
    public Trial {
      aliases = Set.copyOf(aliases);
    }
  }

  /**
   * What is paused at one moment.
   *
   * @param aliases aliases (and pass-through models) none of whose targets can answer now
   * @param features features held whole (forced below T0)
   * @param scopes feature and alias pairs held by their own tier
   * @param trials the targets that may admit a trial call now, each with the aliases waiting on it
   *     (see the class comment)
   * @param reasons why, per alias, feature or pair (see {@link #why})
   */
  public record Paused(Set<String> aliases, Set<String> features, Set<Scope> scopes, List<Trial> trials,
      Map<String, String> reasons) {
    public static final Paused NONE = new Paused(Set.of(), Set.of(), Set.of(), List.of(), Map.of());

    public Paused {
      trials = List.copyOf(trials);
    }

    /** Aliases and features held, without pairs or reasons. */
    public Paused(Set<String> aliases, Set<String> features) {
      this(aliases, features, Set.of(), List.of(), Map.of());
    }

    /** Without trials. */
    public Paused(Set<String> aliases, Set<String> features, Set<Scope> scopes, Map<String, String> reasons) {
      this(aliases, features, scopes, List.of(), reasons);
    }

    /** The aliases (and pass-through models) that wait on a trial: only a trial job of theirs runs. */
    public Set<String> trialAliases() {
      if (trials.isEmpty()) {
        return Set.of();
      }
      Set<String> out = new LinkedHashSet<>();
      trials.forEach(trial -> out.addAll(trial.aliases()));
      return out;
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
      } else if (trials.stream().anyMatch(trial -> trial.aliases().contains(alias))) {
        why.add(reasons.getOrDefault(aliasKey(alias), "held: alias " + alias
            + " admits only a trial call now; one job runs as the trial, the rest wait until the circuit closes"));
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
    Map<Target, Set<String>> trialsOut = new LinkedHashMap<>();
    Map<Target, Gate> trialGates = new LinkedHashMap<>();
    Map<String, String> reasons = new LinkedHashMap<>();
    for (String alias : aliases) {
      Map<Target, Gate> gates = gates(routes.resolve(alias).targets());
      Readiness r = readiness(gates);
      if (r.held()) {
        aliasesOut.add(alias);
        reasons.put(aliasKey(alias), r.primaryOnTrial()
            ? "held: the primary of alias " + alias + " is being tested (" + r.why() + "); its work waits for the "
                + "trial's verdict rather than go to a fallback meanwhile"
            : "held: no target of alias " + alias + " can answer now (" + r.why() + ")");
      } else if (r.trialOnly()) {
        trialsOut.computeIfAbsent(r.trial(), t -> new LinkedHashSet<>()).add(alias);
        trialGates.put(r.trial(), gates.get(r.trial()));
        reasons.put(aliasKey(alias), "held: alias " + alias + " admits only a trial call now (" + r.why()
            + "); one job runs as the trial, the rest wait until the circuit closes");
      }
    }
    // pass-through models go alone to the default upstream; read without counting a use
    for (Map.Entry<Target, Gate> entry : breakers.gates().entrySet()) {
      Target target = entry.getKey();
      if (target.upstream().equals(routes.defaultUpstream()) && !aliases.contains(target.model())) {
        Readiness r = readiness(Map.of(target, entry.getValue()));
        if (r.held()) {
          aliasesOut.add(target.model());
          reasons.put(aliasKey(target.model()), "held: model " + target.model() + " cannot answer now (" + r.why() + ")");
        } else if (r.trialOnly()) {
          trialsOut.computeIfAbsent(target, t -> new LinkedHashSet<>()).add(target.model());
          trialGates.put(target, entry.getValue());
          reasons.put(aliasKey(target.model()), "held: model " + target.model() + " admits only a trial call now ("
              + r.why() + "); one job runs as the trial, the rest wait until the circuit closes");
        }
      }
    }
    List<Trial> trials = new ArrayList<>(trialsOut.size());
    trialsOut.forEach((target, waiting) -> trials.add(new Trial(target, trialGates.get(target), waiting)));
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
    return aliasesOut.isEmpty() && featuresOut.isEmpty() && scopesOut.isEmpty() && trials.isEmpty() ? Paused.NONE
        : new Paused(Set.copyOf(aliasesOut), Set.copyOf(featuresOut), Set.copyOf(scopesOut), trials,
            Map.copyOf(reasons));
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
   * What an alias's targets can answer now.
   *
   * @param held no job may start: the primary's trial is in flight, or no target can answer (each
   *     is OPEN inside its open period, HALF_OPEN with its trials in flight, or cooling after a
   *     rate limit)
   * @param trial not held, and only a trial job may start: the target that may admit that trial
   *     call (the primary, or the first later target when none is CLOSED); null when not so
   * @param primaryOnTrial held because the primary's trial is in flight while a later target could answer
   * @param why what each target waits for (null when ready)
   */
  private record Readiness(boolean held, Target trial, boolean primaryOnTrial, String why) {
    static final Readiness READY = new Readiness(false, null, false, null);

    boolean trialOnly() {
      return trial != null;
    }
  }

  /** Each configured target's breaker, in chain order: pinned, a use changes nothing. */
  private Map<Target, Gate> gates(List<Target> targets) {
    Map<Target, Gate> gates = new LinkedHashMap<>();
    for (Target target : targets) {
      gates.put(target, breakers.gate(target));
    }
    return gates;
  }

  /**
   * Each target's breaker as the request path reads it (shared under {@code cluster:}), in chain
   * order: the primary's trial comes first (see the class comment); else the first CLOSED target
   * makes the alias ready, and the first that may admit a trial makes it a trial alias.
   */
  private Readiness readiness(Map<Target, Gate> targets) {
    if (targets.isEmpty()) {
      return Readiness.READY;
    }
    List<String> why = new ArrayList<>(targets.size());
    Target trialReady = null;
    boolean primary = true;
    for (Map.Entry<Target, Gate> entry : targets.entrySet()) {
      Target target = entry.getKey();
      Gate breaker = entry.getValue();
      Duration openRemaining = breaker.openRemaining();
      boolean open = openRemaining.isPositive();
      boolean trial = !open && breaker.awaitingTrial();
      boolean cooling = tiers.cooldowns().cooling(target);
      if (primary && !open && !cooling && (trial || breaker.state() != CircuitState.CLOSED)) {
        // the primary is on trial, or may be now: its trial decides where the alias's work goes
        return trial ? new Readiness(true, null, targets.size() > 1, target.id() + ": circuit half-open, trial in flight")
            : new Readiness(false, target, false, target.id() + ": circuit half-open, a trial call may start");
      }
      primary = false;
      if (!open && !trial && !cooling) {
        if (breaker.state() == CircuitState.CLOSED) {
          return Readiness.READY;
        }
        if (trialReady == null) {
          trialReady = target;
        }
        why.add(target.id() + ": circuit half-open, a trial call may start");
        continue;
      }
      why.add(target.id() + (open ? ": circuit open, " + seconds(openRemaining) + " left"
          : trial ? ": circuit half-open, trial in flight"
          : ": cooling after a rate limit, " + seconds(tiers.cooldowns().remaining(target)) + " left"));
    }
    return new Readiness(trialReady == null, trialReady, false, String.join("; ", why));
  }

  private static String seconds(Duration d) {
    return Math.max(1, (d.toMillis() + 999) / 1000) + " s";
  }
}
