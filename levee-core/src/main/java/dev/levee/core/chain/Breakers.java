package dev.levee.core.chain;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.Transition;
import dev.levee.core.time.Ticker;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The circuit breakers of all targets, one per {@link Target}, created on first use with one
 * shared config. Clients can name any model, so the number of breakers is bounded: past {@link
 * #MAX_TARGETS} distinct targets, further new targets share one breaker per upstream, named
 * {@code upstream/*}. Thread-safe.
 */
public final class Breakers {

  private final CircuitBreakerConfig config; // null: breakers are off
  private final Ticker ticker;
  private final Consumer<Transition> listener;
  /** Distinct targets that get a breaker of their own. */
  public static final int MAX_TARGETS = 1000;

  private final Map<Target, CircuitBreaker> byTarget = new ConcurrentHashMap<>();

  /**
   * @param listener told of every transition of every breaker (for logs and metrics)
   */
  public Breakers(CircuitBreakerConfig config, Ticker ticker, Consumer<Transition> listener) {
    this.config = Objects.requireNonNull(config, "config");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /** Breakers that admit every call and never open ({@code breaker: off}). */
  public static Breakers disabled(Ticker ticker) {
    return new Breakers(ticker);
  }

  private Breakers(Ticker ticker) {
    this.config = null;
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.listener = t -> { };
  }

  /** The breaker of {@code target}, created CLOSED on first use. */
  public CircuitBreaker of(Target target) {
    CircuitBreaker existing = byTarget.get(target);
    if (existing != null) {
      return existing;
    }
    Target key = byTarget.size() < MAX_TARGETS ? target : new Target(target.upstream(), "*");
    return byTarget.computeIfAbsent(key, t -> {
      if (config == null) {
        return CircuitBreaker.disabled(t.id(), ticker);
      }
      CircuitBreaker breaker = new CircuitBreaker(t.id(), config, ticker);
      breaker.onTransition(listener);
      return breaker;
    });
  }

  /** Every target that has a breaker, ordered by id. */
  public List<Target> targets() {
    return byTarget.keySet().stream().sorted(Comparator.comparing(Target::id)).toList();
  }

  /** Every breaker created so far, by target id, ordered by id. */
  public Map<String, CircuitBreaker> all() {
    Map<String, CircuitBreaker> sorted = new TreeMap<>();
    byTarget.forEach((target, breaker) -> sorted.put(target.id(), breaker));
    return sorted;
  }
}
