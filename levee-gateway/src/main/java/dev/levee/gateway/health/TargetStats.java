package dev.levee.gateway.health;

import dev.levee.core.bound.BoundedTable;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Transition;
import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.sli.SliOutcome;
import dev.levee.core.sli.SliSnapshot;
import dev.levee.core.sli.SlidingWindow;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * A one-minute {@link SlidingWindow} per target, fed with every upstream call's outcome: the
 * numbers behind {@code /health}. Configured targets always keep their window; model names a
 * client invents get one each, once a call to one ends in more than the client's own error, in a
 * {@link BoundedTable} of at most {@value #MAX_OTHERS}, the least used evicted first and one idle
 * for {@link #IDLE} dropped (its minute is long empty by then). An evicted target starts again
 * from an empty window; targets never share one. Thread-safe.
 */
public final class TargetStats implements CallObserver {

  /** The most windows kept for targets that are not configured. */
  static final int MAX_OTHERS = 1000;

  /** How long an unconfigured target's window survives without calls. */
  static final Duration IDLE = Duration.ofMinutes(10);

  /** The span of every target's window (the {@link SlidingWindow} default). */
  static final Duration WINDOW = Duration.ofMinutes(1);

  private final BoundedTable<Target, SlidingWindow> windows; // targets not configured
  private final Map<Target, Configured> configured;

  /**
   * A configured target's window, made at start, whether a call has ever said something of it, and
   * when a trial last closed its circuit ({@link #recovered}).
   */
  private static final class Configured {
    final SlidingWindow window;
    volatile boolean called;
    volatile boolean recovered;
    volatile long recoveredAt;

    Configured(SlidingWindow window) {
      this.window = window;
    }
  }

  private final Ticker ticker;

  public TargetStats(Set<Target> configured, Ticker ticker) {
    this.ticker = ticker;
    Map<Target, Configured> own = new HashMap<>();
    configured.forEach(target -> own.put(target, new Configured(new SlidingWindow(ticker))));
    this.configured = Map.copyOf(own);
    this.windows = new BoundedTable<>(MAX_OTHERS, IDLE, ticker, Set.of(), t -> new SlidingWindow(ticker));
  }

  /**
   * Whether a call to {@code target} has ever ended in an outcome that says something about it
   * (an answer, a server error, a 429; neither cancellations nor the client's own errors count):
   * always remembered for a configured target; for another, while its window is kept.
   */
  public boolean everCalled(Target target) {
    Configured c = configured.get(target);
    return c != null ? c.called : windows.peek(target) != null;
  }

  /**
   * A trial closed {@code target}'s circuit (HALF_OPEN to CLOSED): its window forgets the calls
   * before, as the breaker forgets its failures and as the tiers' windows do, so {@code /health}
   * judges the recovered target by fresh calls only (newcomer trial: the outage's failures, kept
   * beside the trial's success, read {@code insufficient_data} and then {@code degraded} after the
   * circuit had closed).
   */
  public void recovered(Target target) {
    Configured c = configured.get(target);
    SlidingWindow window = c != null ? c.window : windows.peek(target);
    if (window != null) {
      window.clear();
    }
    if (c != null) {
      c.recoveredAt = ticker.nanos();
      c.recovered = true;
    }
  }

  /**
   * A circuit breaker changed state (a listener of every breaker): when a target's circuit closes
   * after its half-open trials, the target {@link #recovered}.
   */
  public void onTransition(Transition t) {
    if (t.from() == CircuitState.HALF_OPEN && t.to() == CircuitState.CLOSED) {
      try {
        recovered(Target.parse(t.breaker()));
      } catch (IllegalArgumentException e) {
        // not a target's breaker
      }
    }
  }

  /**
   * Whether a trial closed the configured {@code target}'s circuit within the last {@link
   * #WINDOW}: every call in its window came after that success.
   */
  public boolean recoveredLately(Target target) {
    Configured c = configured.get(target);
    return c != null && c.recovered && ticker.nanos() - c.recoveredAt < WINDOW.toNanos();
  }

  @Override
  public void onSuccess(Target target, Duration latency) {
    record(target, SliOutcome.SUCCESS, latency);
  }

  @Override
  public void onFailure(Target target, Failure failure, Duration latency) {
    SliOutcome outcome = SliOutcome.of(failure.kind());
    if (outcome != null) {
      record(target, outcome, latency);
    }
  }

  private void record(Target target, SliOutcome outcome, Duration latency) {
    boolean clientError = outcome == SliOutcome.CLIENT_ERROR; // says nothing of the target: not a call of it
    Configured c = configured.get(target);
    if (c == null) {
      // A client's own error (404 for a model the upstream does not know) makes no window: only a
      // target that carried a call gets one, so only such a target counts as called and is listed
      // (newcomer trial: one 404 for "no-such-model" listed it as healthy with 0 calls).
      SlidingWindow window = clientError ? windows.peek(target) : windows.get(target);
      if (window != null) {
        window.record(outcome, latency);
      }
      return;
    }
    if (!clientError && !c.called) {
      c.called = true;
    }
    c.window.record(outcome, latency);
  }

  /**
   * The last minute of {@code target}; empty for a target without a window. Reading does not
   * count as a use.
   */
  public SliSnapshot snapshot(Target target) {
    Configured c = configured.get(target);
    SlidingWindow window = c != null ? c.window : windows.peek(target);
    return window != null ? window.snapshot() : new SliSnapshot(60, 0, 0, 0, 0, 0, 0, 0);
  }

  /** Windows of unconfigured targets dropped so far. */
  public long evictions() {
    return windows.evictions();
  }
}
