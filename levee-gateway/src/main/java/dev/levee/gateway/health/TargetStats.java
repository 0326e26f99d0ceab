package dev.levee.gateway.health;

import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.sli.SliOutcome;
import dev.levee.core.sli.SliSnapshot;
import dev.levee.core.sli.SlidingWindow;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A one-minute {@link SlidingWindow} per target, fed with every upstream call's outcome: the
 * numbers behind {@code /health}. Configured targets and the first {@value #MAX_OTHERS} others
 * get their own window; further model names a client invents share one per upstream ({@code
 * upstream/*}), so memory stays bounded. Thread-safe.
 */
public final class TargetStats implements CallObserver {

  static final int MAX_OTHERS = 100;

  private final Ticker ticker;
  private final java.util.Set<Target> configured;
  private final Map<Target, SlidingWindow> windows = new ConcurrentHashMap<>();
  private final java.util.Set<Target> called = ConcurrentHashMap.newKeySet();

  public TargetStats(java.util.Set<Target> configured, Ticker ticker) {
    this.configured = java.util.Set.copyOf(configured);
    this.ticker = ticker;
  }

  @Override
  public void onSuccess(Target target, Duration latency) {
    markCalled(target);
    window(target).record(SliOutcome.SUCCESS, latency);
  }

  @Override
  public void onFailure(Target target, Failure failure, Duration latency) {
    SliOutcome outcome = SliOutcome.of(failure.kind());
    if (outcome != null) {
      markCalled(target);
      window(target).record(outcome, latency);
    }
  }

  /**
   * Whether a call to {@code target} has ever ended in an outcome that says something about it
   * (a configured target, or one of the first {@value #MAX_OTHERS} others; cancellations do not count).
   */
  public boolean everCalled(Target target) {
    return called.contains(target);
  }

  private void markCalled(Target target) {
    if (configured.contains(target) || called.size() < configured.size() + MAX_OTHERS) {
      called.add(target); // bounded like the windows: a client can invent model names
    }
  }

  /** The last minute of {@code target}. */
  public SliSnapshot snapshot(Target target) {
    return window(target).snapshot();
  }

  private SlidingWindow window(Target target) {

    SlidingWindow existing = windows.get(target);
    if (existing != null) {
      return existing;
    }
    boolean own = configured.contains(target) || windows.size() < configured.size() + MAX_OTHERS;
    return windows.computeIfAbsent(own ? target : new Target(target.upstream(), "*"), t -> new SlidingWindow(ticker));
  }
}
