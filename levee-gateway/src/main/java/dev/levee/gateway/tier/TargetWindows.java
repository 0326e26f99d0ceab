package dev.levee.gateway.tier;

import dev.levee.core.chain.Target;
import dev.levee.core.sli.SliOutcome;
import dev.levee.core.sli.SliSnapshot;
import dev.levee.core.sli.SlidingWindow;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One SLI window per target (upstream + model) over the API calls made to it: the step-down
 * signals of the tiers read the windows of the targets a request's alias uses (issue 10), so a
 * fault on one target shows only where that target is used. Known targets and the first {@value
 * #MAX_OTHERS} others get a window of their own; further model names a client invents share one
 * per upstream ({@code upstream/*}). Thread-safe.
 */
final class TargetWindows {

  static final int MAX_OTHERS = 100;

  /**
   * What the calls of some targets say together.
   *
   * @param calls their windows merged: counts summed, each percentile the highest of theirs
   * @param worst the target with the most failed calls, or null when none failed
   */
  record Merged(SliSnapshot calls, Target worst) {}

  private final Duration window;
  private final Ticker ticker;
  private final Set<Target> known;
  private final Map<Target, SlidingWindow> windows = new ConcurrentHashMap<>();

  TargetWindows(Set<Target> known, Duration window, Ticker ticker) {
    this.known = Set.copyOf(known);
    this.window = window;
    this.ticker = ticker;
  }

  void record(Target target, SliOutcome outcome, Duration latency) {
    window(target).record(outcome, latency);
  }

  SliSnapshot snapshot(Target target) {
    return window(target).snapshot();
  }

  /** Every target with a window, in no particular order. */
  List<Target> targets() {
    return new ArrayList<>(windows.keySet());
  }

  Merged merged(Iterable<Target> targets) {
    long successes = 0, serverErrors = 0, rateLimited = 0, clientErrors = 0, p50 = 0, p95 = 0, p99 = 0;
    double seconds = window.toNanos() / 1e9;
    Target worst = null;
    long worstFailures = 0;
    for (Target target : targets) {
      SliSnapshot s = snapshot(target);
      successes += s.successes();
      serverErrors += s.serverErrors();
      rateLimited += s.rateLimited();
      clientErrors += s.clientErrors();
      p50 = Math.max(p50, s.p50Millis());
      p95 = Math.max(p95, s.p95Millis());
      p99 = Math.max(p99, s.p99Millis());
      long failures = s.serverErrors() + s.rateLimited();
      if (failures > worstFailures) {
        worst = target;
        worstFailures = failures;
      }
    }
    return new Merged(new SliSnapshot(seconds, successes, serverErrors, rateLimited, clientErrors, p50, p95, p99), worst);
  }

  private SlidingWindow window(Target target) {
    SlidingWindow existing = windows.get(target);
    if (existing != null) {
      return existing;
    }
    boolean own = known.contains(target) || windows.size() < known.size() + MAX_OTHERS;
    return windows.computeIfAbsent(own ? target : new Target(target.upstream(), "*"),
        t -> new SlidingWindow(window, 12, ticker));
  }
}
