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
 * numbers behind {@code /health}. Thread-safe.
 */
public final class TargetStats implements CallObserver {

  private final Ticker ticker;
  private final Map<Target, SlidingWindow> windows = new ConcurrentHashMap<>();

  public TargetStats(Ticker ticker) {
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
    return windows.computeIfAbsent(target, t -> new SlidingWindow(ticker));
  }
}
