package dev.levee.gateway.tier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.levee.core.breaker.Gate;
import dev.levee.core.chain.Target;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.List;
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
  /** The most claims kept (client-chosen targets); past it the least used are dropped first. */
  static final int MAX_CLAIMS = 1_000;

  // ticker nanos of a target's last claim; dropped an evaluate-every after the last request asked
  private final Cache<Target, Long> probes;

  /** @param every at most one claim of a target's trial per this ({@code tiers.evaluate-every}) */
  TrialProbes(Ticker ticker, Duration every) {
    this.ticker = ticker;
    this.every = every;
    this.probes = Caffeine.newBuilder()
        .maximumSize(MAX_CLAIMS)
        .expireAfterWrite(every)
        .ticker(ticker::nanos)
        .executor(Runnable::run) // eviction on the calling thread: deterministic on virtual time
        .build();
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
    for (Target target : targets) {
      if (trialPossible(gates.apply(target)) && claim(target)) {
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

  /**
   * Claims {@code target}'s trial for one request: at most one claim an {@code evaluate-every},
   * however many requests ask at once. The clock is read inside the map's atomic update, so a
   * request that read the time, was held up (a shared breaker's state read from Redis) and claims
   * late cannot claim with an old time beside a newer claim: before, two requests at once could both
   * win, one with a time an {@code evaluate-every} old. A claim is dropped once it no longer spaces
   * anything, and past {@value #MAX_CLAIMS} targets the least used first (review: past the bound,
   * every claim scanned the whole table, which kept every live claim however many there were).
   */
  private boolean claim(Target target) {
    long spacing = every.toNanos();
    boolean[] won = {false};
    probes.asMap().compute(target, (t, last) -> {
      long now = ticker.nanos();
      if (last == null || now - last >= spacing) {
        won[0] = true;
        return now;
      }
      return last;
    });
    return won[0];
  }

  /** Claims held now: tests. */
  int claimsHeld() {
    probes.cleanUp();
    return Math.toIntExact(probes.estimatedSize());
  }
}
