package dev.levee.gateway.tier;

import dev.levee.core.breaker.Gate;
import dev.levee.core.chain.Target;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The trial probes of {@link TierBoard#probe}: the targets' circuit breakers (set by {@link
 * TierBoard#watchCircuits}) and, per target, when a request last claimed its trial. Moved out of
 * {@link TierBoard} unchanged. Thread-safe.
 */
final class TrialProbes {

  private final Ticker ticker;
  private final Duration every;
  private volatile Function<Target, Gate> circuits; // null until watchCircuits
  private final Map<Target, Long> probes = new ConcurrentHashMap<>(); // ticker nanos of a target's last probe

  /** @param every at most one claim of a target's trial per this ({@code tiers.evaluate-every}) */
  TrialProbes(Ticker ticker, Duration every) {
    this.ticker = ticker;
    this.every = every;
  }

  /** Reads the targets' circuit breakers from now on (see {@link TierBoard#watchCircuits}). */
  void watch(Function<Target, Gate> gates) {
    this.circuits = java.util.Objects.requireNonNull(gates, "gates");
  }

  /** The circuit breakers; null until {@link #watch}. */
  Function<Target, Gate> circuits() {
    return circuits;
  }

  /** {@code target}'s circuit; null before {@link #watch} or when it has none. */
  Gate gate(Target target) {
    Function<Target, Gate> gates = circuits;
    return gates == null ? null : gates.apply(target);
  }

  /**
   * Whether one of {@code targets} (the targets of the tier above, in order) has a circuit whose
   * trial may be admitted now and no other request claimed it within the last {@code
   * tiers.evaluate-every}; claims it when so (see {@link TierBoard#probe}).
   */
  boolean probe(Function<Target, Gate> gates, List<Target> targets) {
    long now = ticker.nanos();
    for (Target target : targets) {
      if (trialPossible(gates.apply(target)) && claim(target, now)) {
        return true;
      }
    }
    return false;
  }

  private static boolean trialPossible(Gate gate) {
    if (gate == null) {
      return false;
    }
    return switch (gate.state()) {
      case OPEN -> gate.openRemaining().isZero();
      case HALF_OPEN -> !gate.awaitingTrial(); // a shared breaker answers for the cluster
      case CLOSED -> false;
    };
  }

  /** Claims {@code target}'s trial for one request: at most one claim an {@code evaluate-every}. */
  private boolean claim(Target target, long now) {
    if (probes.size() > 1_000) {
      probes.clear(); // stale claims of many client-chosen targets: they only space probes out
    }
    boolean[] won = {false};
    probes.compute(target, (t, last) -> {
      if (last == null || now - last >= every.toNanos()) {
        won[0] = true;
        return now;
      }
      return last;
    });
    return won[0];
  }
}
