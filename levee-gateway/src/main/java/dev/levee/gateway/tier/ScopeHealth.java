package dev.levee.gateway.tier;

import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Gate;
import dev.levee.core.chain.Target;
import dev.levee.core.sli.SliOutcome;
import dev.levee.core.sli.SliSnapshot;
import dev.levee.core.sli.SlidingWindow;
import dev.levee.core.slo.SloTracker;
import dev.levee.core.tier.Priority;
import dev.levee.core.tier.SliReading;
import dev.levee.core.tier.Tier;
import dev.levee.core.tier.TierController;
import dev.levee.core.tier.TierControllerConfig;
import dev.levee.core.tier.TierDecider;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * The health of one feature as used through one alias (issue 10, "health has a scope"): what its
 * clients saw — an SLI window and an SLO tracker fed once per client request — and the tier
 * controller that decides from them and from the API calls of the alias's targets. Requests
 * through another alias, or of another feature, never move this tier. Thread-safe.
 */
final class ScopeHealth {

  private final String feature;
  private final String alias;
  private final List<Target> targets;
  private final List<Target> fullTargets;
  private final List<Target> reducedTargets;
  private final SlidingWindow clients;
  private final SloTracker slo;
  private final TierController controller;
  private final long minVolume;
  private final Function<Target, Gate> circuits;
  private final Ticker ticker;
  private final long probeWithin;
  private volatile long lastClientFailure = Long.MIN_VALUE; // ticker nanos; MIN_VALUE: none yet
  private volatile long lastUsed; // ticker nanos of the last request admitted or recorded
  private volatile boolean adopted; // its controller started from the published tier under this replica's lease

  /**
   * @param chain the alias's chain
   * @param reduced the target T1 and T2 use (the feature's reduced target, else the chain's last)
   * @param window the SLI window (clients and calls alike)
   * @param objective the SLO, e.g. 0.995
   * @param circuits a target's circuit breaker (null when none is known): a step up waits while a
   *     circuit of the tier above is open and untested ({@link #stepUpHeld})
   */
  ScopeHealth(String feature, String alias, List<Target> chain, Target reduced, Priority priority, TierDecider decider,
      TierControllerConfig config, Duration window, double objective, TargetWindows calls,
      Function<Target, Gate> circuits, Ticker ticker) {
    this.feature = feature;
    this.alias = alias;
    List<Target> full = chain.stream().filter(t -> !t.equals(reduced)).toList();
    this.fullTargets = full.isEmpty() ? List.of(reduced) : full;
    this.reducedTargets = List.of(reduced);
    List<Target> all = new java.util.ArrayList<>(chain);
    if (!all.contains(reduced)) {
      all.add(reduced);
    }
    this.targets = List.copyOf(all);
    this.clients = new SlidingWindow(window, 12, ticker);
    this.slo = new SloTracker(objective, ticker);
    this.minVolume = decider.thresholds().minRequests();
    this.circuits = circuits;
    this.ticker = ticker;
    this.probeWithin = config.evaluateEvery().toNanos();
    this.controller = new TierController(feature, priority, decider, () -> reading(calls), config, ticker);
    this.lastUsed = ticker.nanos();
  }

  String feature() {
    return feature;
  }

  String alias() {
    return alias;
  }

  /**
   * The targets the requests of this scope call at {@code tier}: at T0 the chain before the reduced
   * target, below it the reduced target.
   */
  List<Target> targetsAt(Tier tier) {
    return tier == Tier.T0 ? fullTargets : reducedTargets;
  }

  /** Every target the scope may use: the chain and the reduced target. */
  List<Target> targets() {
    return targets;
  }

  TierController controller() {
    return controller;
  }

  /** A request of this scope was admitted or its outcome recorded at {@code now} (ticker nanos). */
  void used(long now) {
    lastUsed = now;
  }

  /** Ticker nanos of the last {@link #used} (the scope's creation before any). */
  long lastUsed() {
    return lastUsed;
  }

  /**
   * Whether this scope's controller started from the tier the cluster published since this replica
   * last took its feature's lease ({@link LeaseTakeover}); false for a scope made since.
   */
  boolean adopted() {
    return adopted;
  }

  void adopted(boolean value) {
    adopted = value;
  }

  /** A client request of this scope was answered (by a target, after any retries and fallbacks, or from the cache at T2). */
  void answered(Duration latency) {
    clients.record(SliOutcome.SUCCESS, latency);
    slo.recordSuccess();
  }

  /** A client request of this scope got no answer from any target (an error, or the last-resort cache). */
  void failed(Duration latency) {
    clients.record(SliOutcome.SERVER_ERROR, latency);
    slo.recordFailure();
    lastClientFailure = ticker.nanos();
  }

  /**
   * Whether a client of this scope failed within {@code span} (the short window): the burn steps
   * down or holds only then. Kept apart from the SLI window, so an evaluation period as long as the
   * window itself still sees the failures since the evaluation before.
   */
  private boolean clientFailedWithin(Duration span) {
    long last = lastClientFailure;
    return last != Long.MIN_VALUE && ticker.nanos() - last <= span.toNanos();
  }

  /**
   * The reading this scope's controller decides from: the signals of the targets the scope's
   * requests go to at its tier — at T0 the chain before the reduced target (so a slow or failing
   * fallback that is never reached does not degrade an alias whose primary answers), at T1 and
   * below the reduced target — and what the clients saw; the p99 of both over the short window
   * too, so a window that remembers slow calls after latency recovered neither steps down nor
   * holds; and whether the targets of the tier above answer now (a step up after flaps needs that
   * or a longer healthy run: {@link TierController}). A scope idle for a whole SLI window (no
   * call to those targets, no client request) starts its burn afresh: see {@code docs/degradation.md},
   * <i>Fresh evidence</i>.
   */
  SliReading reading(TargetWindows calls) {
    Tier at = controller.status().automatic();
    TargetWindows.Reading read = calls.read(targetsAt(at), minVolume);
    SliSnapshot seen = clients.snapshot();
    boolean clientsFailLately = clientFailedWithin(calls.fresh());
    if (read.calls().total() == 0 && seen.total() == 0 && !clientsFailLately) {
      // (a client failure within the short window is fresh even when the window no longer shows it:
      // an evaluate-every as long as the SLI window makes the short window, two evaluations, longer)
      // idle for a whole SLI window: no client came, nothing was called. The burn holds only history
      // now (an outage's failed clients, their work held since); it starts afresh, so it neither
      // holds an idle scope down nor comes back to step it down once calls resume (the backlog drains)
      slo.clear();
    }
    long clientsP99Lately = seen.p99Millis() > 0 ? clients.snapshot(calls.fresh()).p99Millis() : 0;
    boolean aboveHealthy = at != Tier.T0 && calls.answeredLately(targetsAt(at.up())); // evidence against flaps
    return SliReading.scoped(read.calls(), read.worst() == null ? "" : read.worst().id(), seen, slo.burnRates(),
        read.fresh(), clientsFailLately, stepUpHeld(at), Math.max(read.freshP99Millis(), clientsP99Lately))
        .withAboveHealthy(aboveHealthy);
  }

  /**
   * Why a step up from {@code at} must wait, or empty: a target the tier above calls (T1 -> T0: the
   * chain before the reduced target; T2 -> T1: the reduced target) has an OPEN circuit that no trial
   * has tested since it opened — its open period still runs, or it is over and this scope has
   * requests (one of them is the trial: {@link TierBoard#probe}). The evidence that stepped the
   * scope down still stands; stepping up into it would only step down again (the flap of the
   * newcomer trial: T1 -> T0 -> T1 every {@code healthy-for} while a primary was down). A
   * HALF_OPEN circuit holds nothing (its trial decides), nor an open one whose scope has no
   * requests to probe it with: time alone then lets the scope step up, and its first request there
   * is the trial.
   */
  String stepUpHeld(Tier at) {
    if (at == Tier.T0 || at == Tier.T3 || circuits == null) {
      return "";
    }
    long now = ticker.nanos();
    for (Target target : targetsAt(at.up())) {
      Gate gate = circuits.apply(target);
      if (gate == null || gate.state() != CircuitState.OPEN) {
        continue;
      }
      Duration left = gate.openRemaining();
      if (left.isPositive()) {
        return target.id() + ": circuit open, its trial in " + Math.max(1, (left.toMillis() + 999) / 1000) + " s";
      }
      if (now - lastUsed < probeWithin) {
        return target.id() + ": circuit open, its trial is due (the next request probes it)";
      }
    }
    return "";
  }
}
