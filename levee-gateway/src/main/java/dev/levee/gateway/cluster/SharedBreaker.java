package dev.levee.gateway.cluster;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.OutcomeShare;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Permit;
import dev.levee.core.breaker.Transition;
import dev.levee.core.time.Spans;
import dev.levee.core.time.Ticker;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * One target's circuit breaker, shared by every replica of the cluster: the same states and rules
 * as {@link CircuitBreaker}, with the state kept in Redis.
 *
 * <ul>
 *   <li>Failures of all replicas are summed inside the breaker's {@code window}; the one that
 *       reaches {@code failures}, while its own calls in the window fail at least {@code
 *       failureRate} of the time, opens the circuit for everyone, for {@code openFor}.
 *   <li>When the open period ends, exactly <b>one</b> trial call is admitted across all replicas
 *       (an atomic script takes the slot). A trial whose replica dies frees the slot after
 *       {@code trialLease}. {@code closeAfter} trial successes in a row close the circuit. A
 *       trial's outcome that Redis did not confirm (the link flapped) is written again when it
 *       answers ({@link #writePending}), so the lease does not outlive a finished trial.
 *   <li>Outcomes of calls admitted before a transition are ignored (an epoch, like the local
 *       breaker's generation).
 * </ul>
 *
 * <p>A request reads a local copy of the state ({@link SharedView}): admission in CLOSED and
 * rejection in OPEN cost no round trip; a failure, a trial and its outcome cost one. Redis is
 * asked for the trial only once the open period has passed.
 *
 * <p>When Redis is away, the replica decides with its own {@link CircuitBreaker}, which is fed
 * every outcome even while shared, so it is warm when needed. Transitions are posted (to
 * {@link #onTransition} listeners) by the one replica whose call caused them; a close is also
 * heard on every replica ({@link #onClose}), so each one's tier board forgets the target's failures
 * before the close, as the replica that closed it does. Thread-safe.
 */
public final class SharedBreaker {

  /** The answer of {@link #tryAcquire()}. */
  public sealed interface Admission permits Admitted, Rejected {}

  /** The call may proceed; settle {@code permit} exactly once when it ends. */
  public record Admitted(SharedPermit permit) implements Admission {}

  /**
   * The call must not be made.
   *
   * @param state OPEN, or HALF_OPEN when the one trial is already running
   * @param retryAfter time until a trial may be admitted (zero while a trial runs)
   */
  public record Rejected(CircuitState state, Duration retryAfter) implements Admission {}

  private static final int CLOSED = 0;
  private static final int OPEN = 1;
  private static final int TRIAL_FREE = 2;
  private static final int TRIAL_BUSY = 3;
  private static final int TRIAL_MINE = 4;
  private static final LuaScript VIEW = LuaScript.load("breaker-view");
  private static final LuaScript ACQUIRE = LuaScript.load("breaker-acquire");
  private static final LuaScript SETTLE = LuaScript.load("breaker-settle");
  /** Prefix of the message a close publishes besides the invalidation: {@code closed:<epoch>:<target>}. */
  static final String CLOSE_MESSAGE = "closed:";

  /** A replica's copy of the shared state, read at {@code readAt} (ticker nanos). */
  record View(int code, long millis, long epoch, long readAt) {
    long nanosLeft(long now) {
      return readAt + millis * 1_000_000 - now;
    }
  }

  private final String target;
  private final CircuitBreakerConfig config;
  private final RedisLink link;
  private final SharedView<View> views;
  private final Set<SharedBreaker> unwritten;
  private final Ticker ticker;
  private final Duration trialLease;
  private final CircuitBreaker local;
  private final OutcomeShare share;
  private final String viewKey;
  private final String[] keys;
  private final String ttlMillis;
  private final List<Consumer<Transition>> listeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<Transition>> closes = new CopyOnWriteArrayList<>();
  private final AtomicLong closedEpoch = new AtomicLong(Long.MIN_VALUE); // the newest close heard
  private final AtomicReference<String[]> pendingTrial = new AtomicReference<>(); // settle arguments

  /**
   * @param target the target's name (upstream + model), the same on every replica
   * @param config the breaker's settings; every replica must use the same
   * @param trialLease how long a trial may hold the slot before another replica may try (the
   *     attempt timeout is a good value)
   */
  SharedBreaker(String target, CircuitBreakerConfig config, RedisLink link, SharedView<View> views,
      Set<SharedBreaker> unwritten, Ticker ticker, Duration trialLease) {
    this(target, new CircuitBreaker(target, config, ticker), link, views, unwritten, ticker, trialLease);
  }

  /**
   * @param local the replica's own breaker of this target (fed every outcome; decides while Redis is away)
   * @param unwritten the cluster's breakers whose trial outcome waits to be written: this one is in
   *     it from a lost write until {@link #writePending} succeeds
   */
  SharedBreaker(String target, CircuitBreaker local, RedisLink link, SharedView<View> views,
      Set<SharedBreaker> unwritten, Ticker ticker, Duration trialLease) {
    CircuitBreakerConfig config = local.config();
    this.target = Objects.requireNonNull(target, "target");
    this.config = Objects.requireNonNull(config, "config");
    this.link = link;
    this.views = views;
    this.unwritten = unwritten;
    this.ticker = ticker;
    this.trialLease = trialLease;
    this.local = local;
    this.share = new OutcomeShare(config.window().toNanos());
    this.viewKey = "breaker:{" + target + "}";
    this.keys = new String[] {link.key(viewKey), link.key("breaker-failures:{" + target + "}")};
    long ttl = 2 * Math.max(config.window().toMillis(), config.openFor().toMillis()) + trialLease.toMillis() + 60_000;
    this.ttlMillis = Long.toString(ttl);
  }

  public String target() {
    return target;
  }

  /** Hears transitions this replica caused (each transition is heard on one replica only). */
  public void onTransition(Consumer<Transition> listener) {
    listeners.add(Objects.requireNonNull(listener));
  }

  /**
   * Hears every close of the shared circuit (HALF_OPEN to CLOSED after its trials succeeded) on
   * this replica, whichever replica's trial closed it: once per close, from this replica's own
   * settle or from the message the close publishes (a close published while Redis was away from
   * this replica is not heard). The listener runs on the thread that learns of it (a request's,
   * or the Redis client's), so it must be quick and never block.
   */
  public void onClose(Consumer<Transition> listener) {
    closes.add(Objects.requireNonNull(listener));
  }

  /**
   * The circuit closed into {@code epoch} (its epoch after the close): tells the {@link #onClose}
   * listeners unless a close of that epoch or a newer one was told already.
   */
  void closed(long epoch, String reason) {
    long seen;
    do {
      seen = closedEpoch.get();
      if (epoch <= seen) {
        return;
      }
    } while (!closedEpoch.compareAndSet(seen, epoch));
    Transition close = new Transition(target, CircuitState.HALF_OPEN, CircuitState.CLOSED, reason, ticker.nanos());
    for (Consumer<Transition> listener : closes) {
      listener.accept(close);
    }
  }

  /** Asks to make one call. Never blocks longer than one Redis command timeout. */
  public Admission tryAcquire() {
    if (pendingTrial.get() != null) {
      writePending();
    }
    CircuitBreaker.Verdict localAdmission = local.tryAcquire();
    Permit localPermit = localAdmission instanceof CircuitBreaker.Admitted(Permit p) ? p : null;
    Optional<View> shared = link.tryShared() ? views.get(viewKey, k -> read()) : Optional.empty();
    if (shared.isEmpty()) {
      return decideLocally(localAdmission);
    }
    View view = shared.get();
    long now = ticker.nanos();
    if (view.code() == CLOSED) {
      return new Admitted(new SharedPermit(this, view.epoch(), false, localPermit));
    }
    if (view.code() == OPEN && view.nanosLeft(now) > 0) {
      return reject(localPermit, CircuitState.OPEN, Duration.ofNanos(view.nanosLeft(now)));
    }
    if (view.code() == TRIAL_BUSY && view.nanosLeft(now) > 0) {
      return reject(localPermit, CircuitState.HALF_OPEN, Duration.ZERO);
    }
    Optional<List<Long>> answer = link.eval(ACQUIRE, ScriptOutputType.MULTI, keys, Long.toString(trialLease.toMillis()), ttlMillis);
    if (answer.isEmpty()) {
      return decideLocally(localAdmission);
    }
    View fresh = view(answer.get());
    return switch (fresh.code()) {
      case CLOSED -> new Admitted(new SharedPermit(this, fresh.epoch(), false, localPermit));
      case TRIAL_MINE -> {
        views.put(viewKey, new View(TRIAL_BUSY, trialLease.toMillis(), fresh.epoch(), fresh.readAt()));
        yield new Admitted(new SharedPermit(this, fresh.epoch(), true, answer.get().get(3), localPermit));
      }
      case OPEN -> {
        views.put(viewKey, fresh);
        yield reject(localPermit, CircuitState.OPEN, Duration.ofMillis(fresh.millis()));
      }
      default -> {
        views.put(viewKey, fresh);
        yield reject(localPermit, CircuitState.HALF_OPEN, Duration.ZERO);
      }
    };
  }

  /** The state every replica sees now (from the local copy; the local breaker's when Redis is away). */
  public CircuitState state() {
    Optional<View> shared = link.tryShared() ? views.get(viewKey, k -> read()) : Optional.empty();
    if (shared.isEmpty()) {
      return local.state();
    }
    View view = shared.get();
    return switch (view.code()) {
      case CLOSED -> CircuitState.CLOSED;
      case OPEN -> view.nanosLeft(ticker.nanos()) > 0 ? CircuitState.OPEN : CircuitState.HALF_OPEN;
      default -> CircuitState.HALF_OPEN;
    };
  }

  /** Time until a trial may be admitted as every replica sees it; zero unless OPEN. */
  public Duration openRemaining() {
    Optional<View> shared = link.tryShared() ? views.get(viewKey, k -> read()) : Optional.empty();
    if (shared.isEmpty()) {
      return local.openRemaining();
    }
    View view = shared.get();
    return view.code() == OPEN ? Duration.ofNanos(Math.max(0, view.nanosLeft(ticker.nanos()))) : Duration.ZERO;
  }

  /**
   * Whether the one trial of the cluster is in flight, on this replica or another (its lease not
   * run out), as every replica sees it now; the local breaker's answer when Redis is away. Any other
   * call is refused meanwhile.
   */
  public boolean awaitingTrial() {
    Optional<View> shared = link.tryShared() ? views.get(viewKey, k -> read()) : Optional.empty();
    if (shared.isEmpty()) {
      return local.awaitingTrial();
    }
    View view = shared.get();
    return view.code() == TRIAL_BUSY && view.nanosLeft(ticker.nanos()) > 0;
  }

  /** The replica's own breaker, used while Redis is away. */
  CircuitBreaker local() {
    return local;
  }

  void settle(SharedPermit permit, SharedPermit.Outcome outcome) {
    if (!permit.shared()) {
      return;
    }
    boolean rateReached = permit.trial() || failureRateReached(outcome);
    boolean counts = outcome == SharedPermit.Outcome.FAILURE || permit.trial();
    if (!counts) {
      return;
    }
    String[] args = {Long.toString(permit.epoch()), permit.trial() ? "1" : "0", outcome.code,
        Integer.toString(config.failures()), Long.toString(config.window().toMillis()),
        Long.toString(config.openFor().toMillis()), Integer.toString(config.closeAfter()), ttlMillis,
        link.channel(), viewKey, rateReached ? "1" : "0", Long.toString(permit.token()),
        CLOSE_MESSAGE + (permit.epoch() + 1) + ":" + target};
    if (!write(args) && permit.trial()) {
      pendingTrial.set(args); // the link flapped: written by writePending once Redis answers
      unwritten.add(this);
    }
  }

  /**
   * Writes the outcome of this replica's trial that Redis did not confirm (the link was away or
   * slow when the trial ended), so the circuit closes or opens for every replica when the link
   * answers again, not when the trial's lease runs out (newcomer trial: a successful trial lost,
   * the circuit held HALF_OPEN for a 30 s lease, 9 of 10 requests sent to the fallback). Writing it
   * twice counts once (the trial's token). Called before each admission and by {@link Cluster}
   * every 100 ms for each breaker with an outcome pending (even one the replica's breaker table has
   * evicted meanwhile); costs nothing when no outcome is pending.
   */
  void writePending() {
    String[] args = pendingTrial.get();
    if (args == null) {
      unwritten.remove(this);
    } else if (link.tryShared() && write(args) && pendingTrial.compareAndSet(args, null)) {
      unwritten.remove(this);
    }
  }

  /** Whether a trial's outcome waits to be written (tests). */
  boolean trialOutcomePending() {
    return pendingTrial.get() != null;
  }

  /** Runs the settle script; false when Redis did not answer. Posts the transition it caused. */
  private boolean write(String[] args) {
    Optional<Long> result = link.eval(SETTLE, ScriptOutputType.INTEGER, keys, args);
    if (result.isEmpty()) {
      return false;
    }
    if (result.get() == 0) {
      return true;
    }
    views.invalidate(viewKey);
    boolean trial = args[1].equals("1");
    long now = ticker.nanos();
    Transition transition = switch (result.get().intValue()) {
      case 1 -> new Transition(target, CircuitState.HALF_OPEN, CircuitState.CLOSED,
          config.closeAfter() + " trial calls succeeded (shared)", now);
      case 2 -> new Transition(target, trial ? CircuitState.HALF_OPEN : CircuitState.CLOSED, CircuitState.OPEN,
          trial ? "trial call failed (shared)"
              : config.failures() + " failures within " + Spans.of(config.window()) + " across replicas", now);
      default -> null;
    };
    if (transition != null) {
      for (Consumer<Transition> listener : listeners) {
        listener.accept(transition);
      }
    }
    if (result.get() == 1) {
      closed(Long.parseLong(args[0]) + 1, transition.reason());
    }
    return true;
  }

  /**
   * Counts a CLOSED call's outcome in this replica's share and says whether its failures reach
   * {@code failureRate}: the share the shared count must also reach before it opens the circuit,
   * read from this replica's own calls (a sample of the cluster's traffic), so that successes cost
   * no round trip.
   */
  private boolean failureRateReached(SharedPermit.Outcome outcome) {
    synchronized (share) {
      long now = ticker.nanos();
      switch (outcome) {
        case SUCCESS -> share.success(now);
        case FAILURE -> share.failure(now);
        case CANCELLED -> { }
      }
      return share.failureShare(now) >= config.failureRate();
    }
  }

  private Optional<View> read() {
    return link.<List<Long>>eval(VIEW, ScriptOutputType.MULTI, keys).map(this::view);
  }

  private View view(List<Long> answer) {
    return new View(answer.get(0).intValue(), answer.get(1), answer.get(2), ticker.nanos());
  }

  private Admission decideLocally(CircuitBreaker.Verdict localAdmission) {
    return switch (localAdmission) {
      case CircuitBreaker.Admitted(Permit p) -> new Admitted(new SharedPermit(this, -1, false, p));
      case CircuitBreaker.Rejected(CircuitState state, Duration retryAfter) -> new Rejected(state, retryAfter);
    };
  }

  private static Admission reject(Permit localPermit, CircuitState state, Duration retryAfter) {
    if (localPermit != null) {
      localPermit.cancelled();
    }
    return new Rejected(state, retryAfter);
  }

  @Override
  public String toString() {
    return "SharedBreaker[" + target + ", " + state() + "]";
  }
}
