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

  public TargetStats(java.util.Set<Target> configured, Ticker ticker) {
    this.configured = java.util.Set.copyOf(configured);
    this.ticker = ticker;
  }

  @Override
  public void onSuccess(Target target, Duration latency) {
    window(target).record(SliOutcome.SUCCESS, latency);
  }

  @Override
  public void onFailure(Target target, Failure failure, Duration latency) {
    SliOutcome outcome = SliOutcome.of(failure.kind());
    if (outcome != null) {
      window(target).record(outcome, latency);
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
