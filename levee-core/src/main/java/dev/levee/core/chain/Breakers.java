package dev.levee.core.chain;

import dev.levee.core.bound.BoundedTable;
import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.Gate;
import dev.levee.core.breaker.Transition;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The circuit breakers of all targets, one per {@link Target}, created CLOSED on first use with
 * one shared config. Thread-safe.
 *
 * <p>Clients can name any model, so the table is a {@link BoundedTable}: the configured targets
 * (pinned) always keep their breaker; of the others, at most {@link #MAX_TARGETS} are kept, the
 * least used evicted first, and one unused for {@link #idleFor} (at least {@link #MIN_IDLE}, and
 * never less than the breaker's window plus its open period, so an eviction forgets nothing a
 * breaker still remembered) is dropped. An evicted target gets a fresh breaker on its next use;
 * targets never share one. A gate made for a breaker by {@link #shareThrough} is kept with it and
 * dropped with it, so sharing adds no table of its own.
 */
public final class Breakers {

  /** The most breakers kept for targets that are not configured. */
  public static final int MAX_TARGETS = 1000;

  /** The shortest time an unused, unconfigured target keeps its breaker: 10 minutes. */
  public static final Duration MIN_IDLE = Duration.ofMinutes(10);

  private final BoundedTable<Target, Entry> byTarget;
  private final Duration idleFor;
  private volatile BiFunction<Target, CircuitBreaker, Gate> shared; // null: each target's own breaker decides

  /**
   * Breakers without pinned targets.
   *
   * @param listener told of every transition of every breaker (for logs and metrics)
   */
  public Breakers(CircuitBreakerConfig config, Ticker ticker, Consumer<Transition> listener) {
    this(config, ticker, listener, Set.of());
  }

  /**
   * @param listener told of every transition of every breaker (for logs and metrics)
   * @param configured targets whose breakers are never evicted
   */
  public Breakers(CircuitBreakerConfig config, Ticker ticker, Consumer<Transition> listener,
      Collection<Target> configured) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(listener, "listener");
    Duration remembered = config.window().plus(config.openFor());
    this.idleFor = remembered.compareTo(MIN_IDLE) > 0 ? remembered : MIN_IDLE;
    this.byTarget = new BoundedTable<>(MAX_TARGETS, idleFor, ticker, configured, t -> {
      CircuitBreaker breaker = new CircuitBreaker(t.id(), config, ticker);
      breaker.onTransition(listener);
      return new Entry(t, breaker);
    });
  }

  /** Breakers that admit every call and never open ({@code breaker: off}). */
  public static Breakers disabled(Ticker ticker) {
    return new Breakers(ticker);
  }

  private Breakers(Ticker ticker) {
    Objects.requireNonNull(ticker, "ticker");
    this.idleFor = MIN_IDLE;
    this.byTarget = new BoundedTable<>(MAX_TARGETS, idleFor, ticker, Set.of(),
        t -> new Entry(t, CircuitBreaker.disabled(t.id(), ticker)));
  }

  /** The breaker of {@code target}, created CLOSED on first use (and again after eviction). */
  public CircuitBreaker of(Target target) {
    return byTarget.get(target).local;
  }

  /**
   * What the fallback chain asks before a call to {@code target}: its breaker, or, once {@link
   * #shareThrough} was called, the gate that function made for that breaker.
   */
  public Gate gate(Target target) {
    return byTarget.get(target).gate(shared);
  }

  /**
   * Lets {@code gates} answer for every target from now on, e.g. a breaker shared by several
   * gateway replicas. It is called once per breaker this table holds, with the target and its local
   * breaker (kept for reports and as the fallback while the shared state is unreachable); the gate
   * it returns is kept with that breaker and dropped with it, and a target whose breaker was evicted
   * gets a new gate around its new breaker. Call once, at start-up.
   */
  public void shareThrough(BiFunction<Target, CircuitBreaker, Gate> gates) {
    this.shared = Objects.requireNonNull(gates, "gates");
  }

  /** How long an unused, unconfigured target keeps its breaker. */
  public Duration idleFor() {
    return idleFor;
  }

  /** Breakers of unconfigured targets dropped so far (least used past the bound, or idle). */
  public long evictions() {
    return byTarget.evictions();
  }

  /**
   * Every breaker held now, by target, ordered by id. Reading it does not count as a use (a
   * health report does not keep an idle target's breaker alive).
   */
  public Map<Target, CircuitBreaker> circuits() {
    Map<Target, CircuitBreaker> sorted = new TreeMap<>(Comparator.comparing(Target::id));
    byTarget.entries().forEach((target, entry) -> sorted.put(target, entry.local));
    return sorted;
  }

  /**
   * What the fallback chain would ask of every target whose breaker is held now ({@link #gate}),
   * ordered by id: the shared gate once {@link #shareThrough} was called, else the local breaker.
   * Reading it does not count as a use.
   */
  public Map<Target, Gate> gates() {
    BiFunction<Target, CircuitBreaker, Gate> gates = shared;
    Map<Target, Gate> sorted = new TreeMap<>(Comparator.comparing(Target::id));
    byTarget.entries().forEach((target, entry) -> sorted.put(target, entry.gate(gates)));
    return sorted;
  }

  /** Every breaker held now, by target id, ordered by id. */
  public Map<String, CircuitBreaker> all() {
    Map<String, CircuitBreaker> sorted = new TreeMap<>();
    byTarget.entries().forEach((target, entry) -> sorted.put(target.id(), entry.local));
    return sorted;
  }

  /** A target's breaker and the gate made for it once shared (lives and is evicted with it). */
  private static final class Entry {
    private final Target target;
    private final CircuitBreaker local;
    private volatile Gate gate; // null until first asked for once shared

    Entry(Target target, CircuitBreaker local) {
      this.target = target;
      this.local = local;
    }

    /** The local breaker when not shared, else the one gate {@code gates} makes for it. */
    Gate gate(BiFunction<Target, CircuitBreaker, Gate> gates) {
      if (gates == null) {
        return local;
      }
      Gate made = gate;
      if (made == null) {
        synchronized (this) {
          made = gate;
          if (made == null) {
            gate = made = gates.apply(target, local);
          }
        }
      }
      return made;
    }
  }
}
