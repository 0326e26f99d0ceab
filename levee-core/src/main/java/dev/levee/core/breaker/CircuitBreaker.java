package dev.levee.core.breaker;

import dev.levee.core.time.Spans;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A circuit breaker for one target, with real half-open trials.
 *
 * <ul>
 *   <li><b>CLOSED</b>: every call is admitted. When {@code failures} failures fall inside the
 *       sliding {@code window} (older ones age out) and they are at least {@code failureRate} of
 *       the calls settled in it, the circuit opens. The share keeps a busy target's sporadic
 *       failures (2 % of thousands of calls) from opening it: a count alone would shut a healthy
 *       model off for {@code openFor} (session 6 newcomer trial; a failure-rate threshold with a
 *       minimum number of calls, as Resilience4j and Polly do).
 *   <li><b>OPEN</b>: calls are rejected at once with the time left until {@code openFor} ends.
 *   <li><b>HALF_OPEN</b>: once {@code openFor} has passed, calls are admitted as trials, at most
 *       {@code halfOpenTrials} in flight; the others are rejected as if OPEN. After {@code
 *       closeAfter} consecutive trial successes the circuit closes; any trial failure reopens it
 *       for a fresh {@code openFor}. A cancelled trial frees its slot without counting.
 * </ul>
 *
 * <p>Every admitted call gets a {@link Permit} that must be settled exactly once. Outcomes of
 * permits issued before a later state change are ignored, so a slow call that started while
 * CLOSED cannot close a circuit that has since opened.
 *
 * <p>Thread-safe. Admission in CLOSED takes no lock; state changes hold this breaker's own lock
 * (never a global one). Listeners are called after the lock is released, on the thread that
 * caused the transition.
 */
public final class CircuitBreaker implements Gate {

  /** The answer of {@link #tryAcquire()}. */
  public sealed interface Verdict permits Admitted, Rejected {}

  /** The call may proceed; settle {@code permit} when it ends. */
  public record Admitted(Permit permit) implements Verdict {}

  /**
   * The call must not be made.
   *
   * @param state OPEN, or HALF_OPEN when every trial slot is taken
   * @param retryAfter time until a trial may be admitted (zero when a trial is already running)
   */
  public record Rejected(CircuitState state, Duration retryAfter) implements Verdict {}

  /** A point-in-time view for health reports. */
  public record Snapshot(CircuitState state, Duration openRemaining, int recentFailures) {}

  private final String name;
  private final CircuitBreakerConfig config;
  private final Ticker ticker;
  private final boolean enabled;
  private final List<Consumer<Transition>> listeners = new CopyOnWriteArrayList<>();

  private final Object lock = new Object();
  private volatile CircuitState state = CircuitState.CLOSED;
  private volatile long generation;
  private final long[] failureTimes; // ring of the most recent failure readings (CLOSED only)
  private int failureCount;
  private int failureHead;
  private final OutcomeShare share;
  private long openUntil;
  private int trialsInFlight;
  private int trialSuccesses;

  public CircuitBreaker(String name, CircuitBreakerConfig config, Ticker ticker) {
    this(name, config, ticker, true);
  }

  private CircuitBreaker(String name, CircuitBreakerConfig config, Ticker ticker, boolean enabled) {
    this.name = Objects.requireNonNull(name, "name");
    this.config = Objects.requireNonNull(config, "config");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.enabled = enabled;
    this.failureTimes = new long[enabled ? config.failures() : 0];
    this.share = new OutcomeShare(config.window().toNanos());
  }

  /**
   * A breaker that admits every call and never changes state ({@code breaker: off}): for
   * baselines and for upstreams whose own protection is trusted.
   */
  public static CircuitBreaker disabled(String name, Ticker ticker) {
    return new CircuitBreaker(name, CircuitBreakerConfig.DEFAULT, ticker, false);
  }

  public String name() {
    return name;
  }

  public CircuitBreakerConfig config() {
    return config;
  }

  /** Registers a listener for every state change. */
  public void onTransition(Consumer<Transition> listener) {
    listeners.add(Objects.requireNonNull(listener));
  }

  /**
   * The current state. An OPEN circuit whose open period has passed still reports OPEN until
   * the next {@link #tryAcquire()} admits its first trial.
   */
  @Override
  public CircuitState state() {
    return state;
  }

  /** Asks to make one call. Never blocks. */
  @Override
  public Verdict tryAcquire() {
    if (state == CircuitState.CLOSED) {
      return new Admitted(new Permit(this, generation, false));
    }
    Transition transition = null;
    Verdict verdict;
    synchronized (lock) {
      long now = ticker.nanos();
      if (state == CircuitState.OPEN) {
        if (now - openUntil < 0) {
          return new Rejected(CircuitState.OPEN, Duration.ofNanos(openUntil - now));
        }
        transition = moveTo(CircuitState.HALF_OPEN, "open for " + Spans.of(config.openFor()) + ", admitting trials", now);
        trialsInFlight = 0;
        trialSuccesses = 0;
      }
      if (state == CircuitState.CLOSED) {
        verdict = new Admitted(new Permit(this, generation, false));
      } else if (trialsInFlight < config.halfOpenTrials()) {
        trialsInFlight++;
        verdict = new Admitted(new Permit(this, generation, true));
      } else {
        verdict = new Rejected(CircuitState.HALF_OPEN, Duration.ZERO);
      }
    }
    publish(transition);
    return verdict;
  }

  /**
   * Whether the circuit is HALF_OPEN with every trial slot ({@code halfOpenTrials}) taken by a
   * call still in flight: any other call is refused until a trial settles, and the trial decides
   * whether the circuit closes or opens again.
   */
  @Override
  public boolean awaitingTrial() {
    synchronized (lock) {
      return state == CircuitState.HALF_OPEN && trialsInFlight >= config.halfOpenTrials();
    }
  }

  /** Time left until a trial may be admitted; zero unless OPEN. */
  @Override
  public Duration openRemaining() {
    return snapshot().openRemaining();
  }

  /** State, open time left and failures currently inside the window. */
  public Snapshot snapshot() {
    synchronized (lock) {
      long now = ticker.nanos();
      Duration remaining = state == CircuitState.OPEN && now - openUntil < 0
          ? Duration.ofNanos(openUntil - now) : Duration.ZERO;
      return new Snapshot(state, remaining, failuresInWindow(now));
    }
  }

  void settle(Permit permit, Permit.Outcome outcome) {
    if (!enabled) {
      return;
    }
    Transition transition = null;
    synchronized (lock) {
      if (permit.generation() != generation) {
        return; // the circuit has moved on since this call was admitted
      }
      long now = ticker.nanos();
      if (permit.trial()) {
        trialsInFlight--;
        switch (outcome) {
          case SUCCESS -> {
            if (++trialSuccesses >= config.closeAfter()) {
              transition = moveTo(CircuitState.CLOSED, trialSuccesses + " trial calls succeeded", now);
              clearFailures();
            }
          }
          case FAILURE -> transition = open("trial call failed", now);
          case CANCELLED -> { }
        }
      } else if (outcome == Permit.Outcome.SUCCESS && state == CircuitState.CLOSED) {
        share.success(now);
      } else if (outcome == Permit.Outcome.FAILURE && state == CircuitState.CLOSED) {
        share.failure(now);
        failureTimes[failureHead] = now;
        failureHead = (failureHead + 1) % failureTimes.length;
        failureCount = Math.min(failureCount + 1, failureTimes.length);
        if (failuresInWindow(now) >= config.failures() && share.failureShare(now) >= config.failureRate()) {
          transition = open(config.failures() + " failures within " + Spans.of(config.window()), now);
        }
      }
    }
    publish(transition);
  }

  private int failuresInWindow(long now) {
    long windowNanos = config.window().toNanos();
    int inWindow = 0;
    for (int i = 0; i < failureCount; i++) {
      if (now - failureTimes[i] <= windowNanos) {
        inWindow++;
      }
    }
    return inWindow;
  }

  private Transition open(String reason, long now) {
    openUntil = now + config.openFor().toNanos();
    clearFailures();
    return moveTo(CircuitState.OPEN, reason, now);
  }

  private void clearFailures() {
    failureCount = 0;
    failureHead = 0;
    share.clear();
  }

  private Transition moveTo(CircuitState to, String reason, long now) {
    CircuitState from = state;
    state = to;
    generation++;
    return new Transition(name, from, to, reason, now);
  }

  private void publish(Transition transition) {
    if (transition != null) {
      for (Consumer<Transition> listener : listeners) {
        listener.accept(transition);
      }
    }
  }

  @Override
  public String toString() {
    return "CircuitBreaker[" + name + ", " + state + "]";
  }
}
