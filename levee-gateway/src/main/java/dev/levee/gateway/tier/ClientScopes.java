package dev.levee.gateway.tier;

import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The scopes of model names no alias names (client-chosen names) in {@link TierBoard}'s scope
 * table: at most {@value TierBoard#MAX_CLIENT_SCOPES} of their own, all features together, then
 * the feature's shared {@value TierBoard#OTHER_MODELS} scope; idle ones at T0 are dropped when a
 * new name needs a slot. Moved out of {@link TierBoard} unchanged. Thread-safe.
 */
final class ClientScopes {

  /** Makes a scope of the board (its controller reporting transitions to the board). */
  interface Factory {
    ScopeHealth make(String feature, String alias, List<Target> targets);
  }

  private final Map<TierBoard.ScopeKey, ScopeHealth> scopes; // the board's table, configured aliases' included
  private final Predicate<String> configured;
  private final Factory factory;
  private final Function<ScopeHealth, Tier> scopeTier;
  private final Consumer<ScopeHealth> onDrop;
  private final Duration every;
  private final AtomicInteger clientScopes = new AtomicInteger(); // scopes of names no alias names
  private final Duration clientIdle;
  private volatile long nextSweep; // ticker nanos before which no idle client scope can be dropped
  private final LongAdder scopeEvictions = new LongAdder();

  /**
   * @param scopes the board's scope table, which this adds client-chosen names' scopes to and drops
   *     them from
   * @param configured whether an alias is configured
   * @param scopeTier a scope's tier (its controller's, or the published one when shared)
   * @param onDrop called for each dropped scope (the board forgets its last transition)
   * @param every at most one sweep for idle scopes per this ({@code tiers.evaluate-every})
   * @param clientIdle see {@link TierBoard#clientScopeIdle()}
   * @param now ticker nanos now
   */
  ClientScopes(Map<TierBoard.ScopeKey, ScopeHealth> scopes, Predicate<String> configured, Factory factory,
      Function<ScopeHealth, Tier> scopeTier, Consumer<ScopeHealth> onDrop, Duration every, Duration clientIdle,
      long now) {
    this.scopes = scopes;
    this.configured = configured;
    this.factory = factory;
    this.scopeTier = scopeTier;
    this.onDrop = onDrop;
    this.every = every;
    this.clientIdle = clientIdle;
    this.nextSweep = now;
  }

  /**
   * The scope of a client-chosen name: its own while fewer than {@value
   * TierBoard#MAX_CLIENT_SCOPES} exist (after dropping idle ones, {@link #dropIdleClientScopes}),
   * else the feature's {@value TierBoard#OTHER_MODELS} scope, which reads the upstream's shared
   * call window.
   */
  ScopeHealth clientScope(String feature, String alias, List<Target> targets, long now) {
    ScopeHealth own = ownScope(feature, alias, targets, now);
    return own != null ? own : sharedScope(feature, targets);
  }

  /**
   * The own scope of a client-chosen name, made while fewer than {@value TierBoard#MAX_CLIENT_SCOPES}
   * exist (after dropping idle ones, {@link #dropIdleClientScopes}); null when the bound is reached.
   * {@link #clientScope} falls back to the shared scope then; a new lease holder adopting the name's
   * published tier ({@link LeaseTakeover}) adopts nothing, since that tier is the name's, not the
   * shared scope's. Not marked used.
   */
  ScopeHealth ownScope(String feature, String alias, List<Target> targets, long now) {
    TierBoard.ScopeKey key = new TierBoard.ScopeKey(feature, alias);
    if (clientScopes.get() >= TierBoard.MAX_CLIENT_SCOPES) {
      dropIdleClientScopes(now);
    }
    return scopes.computeIfAbsent(key, k -> {
      if (clientScopes.incrementAndGet() > TierBoard.MAX_CLIENT_SCOPES) {
        clientScopes.decrementAndGet();
        return null; // no mapping
      }
      return factory.make(feature, alias, targets);
    });
  }

  /**
   * The feature's {@value TierBoard#OTHER_MODELS} scope, made on first use: it reads the shared call
   * window of the upstreams of {@code targets} (a client-chosen name's).
   */
  ScopeHealth sharedScope(String feature, List<Target> targets) {
    List<Target> shared = targets.stream().map(t -> new Target(t.upstream(), TierBoard.OTHER_MODELS)).distinct()
        .toList();
    return scopes.computeIfAbsent(new TierBoard.ScopeKey(feature, TierBoard.OTHER_MODELS),
        k -> factory.make(feature, TierBoard.OTHER_MODELS, shared));
  }

  /** See {@link TierBoard#clientScopeIdle()}. */
  Duration clientScopeIdle() {
    return clientIdle;
  }

  /** Scopes of client-chosen names dropped so far for being idle at T0. */
  long scopeEvictions() {
    return scopeEvictions.sum();
  }

  /**
   * Drops every scope of a client-chosen name (not the shared {@value TierBoard#OTHER_MODELS} one)
   * that is at T0 and unused for {@link TierBoard#clientScopeIdle()}: called when a new name finds
   * the bound reached. A scope below T0 is kept whatever its age (it steps up on its own, one tier a
   * {@code tiers.healthy-for}, once its windows empty). Sweeps at most once an {@code
   * evaluate-every}, or sooner when a scope at T0 comes of age, so a burst of new names past the
   * bound costs no repeated scans. A request admitted in the instant its hour-idle scope is dropped
   * records into the shared scope (one sample).
   */
  private void dropIdleClientScopes(long now) {
    if (now - nextSweep < 0) {
      return;
    }
    long next = now + every.toNanos();
    for (ScopeHealth s : scopes.values()) {
      if (configured.test(s.alias()) || s.alias().equals(TierBoard.OTHER_MODELS) || !atT0(s)) {
        continue;
      }
      long due = s.lastUsed() + clientIdle.toNanos();
      if (now - due < 0) {
        next = due - next < 0 ? due : next;
        continue;
      }
      boolean[] dropped = {false};
      scopes.computeIfPresent(new TierBoard.ScopeKey(s.feature(), s.alias()), (k, v) -> {
        if (v == s && now - (v.lastUsed() + clientIdle.toNanos()) >= 0 && atT0(v)) {
          dropped[0] = true;
          return null;
        }
        return v;
      });
      if (dropped[0]) {
        clientScopes.decrementAndGet();
        onDrop.accept(s);
        scopeEvictions.increment();
      }
    }
    nextSweep = next;
  }

  private boolean atT0(ScopeHealth scope) {
    return scope.controller().current() == Tier.T0 && scopeTier.apply(scope) == Tier.T0;
  }
}
