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
 * fault on one target shows only where that target is used. Known targets and up to {@value
 * #MAX_OTHERS} others get a window of their own; further model names a client invents share one
 * per upstream ({@code upstream/*}). An other target's window with no call for twice the SLI window
 * (it is empty by then) is dropped when a new target needs a slot, so the bound is on targets in
 * use, not on targets ever called; reading a target makes no window. A call racing the drop of
 * its target's window (idle for two windows) may be lost. Thread-safe.
 */
final class TargetWindows {

  static final int MAX_OTHERS = 100;

  /**
   * What the calls of some targets say, signal by signal.
   *
   * @param calls a window whose 5xx share, 429 share and p99 are each the worst of the targets
   *     that have the minimum volume (each target read on its own, so a busy shared fallback never
   *     dilutes a failing primary); when none has it, their windows merged
   * @param worst the target with the highest failure share (else the highest p99) among them, or
   *     null when none failed and none is slow
   * @param fresh whether one of those targets had a call fail (5xx or 429) within the short window
   *     ({@link #fresh()}): failures that are over hold a tier, they never step it down
   * @param freshP99Millis the highest p99 of those targets' calls within the short window, ms (0
   *     when none gave a latency sample there): a p99 steps down and holds only while this is high
   *     too ({@link dev.levee.core.tier.SliReading#freshP99Millis()})
   */
  record Reading(SliSnapshot calls, Target worst, boolean fresh, long freshP99Millis) {}

  private final Duration window;
  private final Duration fresh;
  private final Ticker ticker;
  private final Set<Target> known;
  private final Map<Target, SlidingWindow> windows = new ConcurrentHashMap<>();
  private final Map<Target, Long> lastCall = new ConcurrentHashMap<>(); // other targets' own windows: ticker nanos
  private final long idleNanos;
  private volatile long nextSweep; // ticker nanos before which no window can be idle enough
  private final java.util.concurrent.atomic.LongAdder evictions = new java.util.concurrent.atomic.LongAdder();

  /**
   * @param window the SLI window (default 60 s, {@code tiers.window})
   * @param evaluateEvery how often the tiers read the windows ({@code tiers.evaluate-every}, 5 s)
   */
  TargetWindows(Set<Target> known, Duration window, Duration evaluateEvery, Ticker ticker) {
    this.known = Set.copyOf(known);
    this.window = window;
    Duration twelfth = window.dividedBy(12);
    Duration twoEvaluations = evaluateEvery.multipliedBy(2);
    this.fresh = twelfth.compareTo(twoEvaluations) >= 0 ? twelfth : twoEvaluations;
    this.ticker = ticker;
    this.idleNanos = window.multipliedBy(2).toNanos();
    this.nextSweep = ticker.nanos();
  }

  /**
   * The short window: a failure within it is fresh. The newest 1/12 of the SLI window (the SRE
   * workbook's ratio of a multiwindow alert's short window to its long one), at least two
   * evaluations so that every evaluation sees the failures since the one before even when it runs
   * late: 10 s with the defaults (60 s window, evaluated every 5 s).
   */
  Duration fresh() {
    return fresh;
  }

  /**
   * {@code target} has recovered (its circuit closed after successful trials): its window forgets
   * every call made before, so failures that are over never step a tier down once its calls reach
   * the minimum volume again (the backlog draining after an outage). A target sharing the window of
   * its upstream's other client-chosen names ({@code upstream/*}) leaves the shared window alone.
   */
  void recovered(Target target) {
    SlidingWindow own = windows.get(target);
    if (own != null) {
      own.clear();
    }
  }

  void record(Target target, SliOutcome outcome, Duration latency) {
    window(target).record(outcome, latency);
    if (!known.contains(target) && !"*".equals(target.model()) && windows.containsKey(target)) {
      lastCall.put(target, ticker.nanos());
    }
  }

  /**
   * The calls of {@code target}: its own window; for an other target without one, the shared
   * {@code upstream/*} window while the bound is reached, else an empty window. Makes a window
   * only for a known target.
   */
  SliSnapshot snapshot(Target target) {
    SlidingWindow w = readable(target);
    return w != null ? w.snapshot() : empty();
  }

  private SliSnapshot empty() {
    return new SliSnapshot(window.toNanos() / 1e9, 0, 0, 0, 0, 0, 0, 0);
  }

  /** The window {@link #snapshot} reads, or null for an other target with none (none is made). */
  private SlidingWindow readable(Target target) {
    if (known.contains(target)) {
      return window(target);
    }
    SlidingWindow own = windows.get(target);
    if (own == null && windows.size() >= known.size() + MAX_OTHERS) {
      own = windows.get(new Target(target.upstream(), "*"));
    }
    return own;
  }

  /** Windows of other targets dropped so far for being idle. */
  long evictions() {
    return evictions.sum();
  }

  /** Whether {@code target} is configured (a chain's or a feature's reduced target). */
  boolean known(Target target) {
    return known.contains(target);
  }

  /** Every target with a window, in no particular order. */
  List<Target> targets() {
    return new ArrayList<>(windows.keySet());
  }

  /**
   * Whether one of {@code targets} answered a call within the short window and none of them failed
   * there: evidence that they are healthy now (a trial probe that passed, a cache miss the reduced
   * target answered). The answers are read from the slices overlapping the short window.
   */
  boolean answeredLately(Iterable<Target> targets) {
    boolean answered = false;
    for (Target target : targets) {
      SlidingWindow w = readable(target);
      if (w == null) {
        continue;
      }
      if (w.failedWithin(fresh)) {
        return false;
      }
      answered |= w.snapshot(fresh).successes() > 0;
    }
    return answered;
  }

  /** The signals of {@code targets}; see {@link Reading}. */
  Reading read(Iterable<Target> targets, long minVolume) {
    List<SliSnapshot> enough = new ArrayList<>();
    List<Target> enoughTargets = new ArrayList<>();
    List<SliSnapshot> all = new ArrayList<>();
    List<Target> allTargets = new ArrayList<>();
    boolean freshInAll = false;
    boolean freshInEnough = false;
    long slowInAll = 0;
    long slowInEnough = 0;
    for (Target target : targets) {
      SlidingWindow w = readable(target);
      SliSnapshot s = w != null ? w.snapshot() : empty();
      boolean failedLately = w != null && w.failedWithin(fresh);
      long p99Lately = w != null && s.p99Millis() > 0 ? w.snapshot(fresh).p99Millis() : 0;
      all.add(s);
      allTargets.add(target);
      freshInAll |= failedLately;
      slowInAll = Math.max(slowInAll, p99Lately);
      if (s.total() >= minVolume) {
        enough.add(s);
        enoughTargets.add(target);
        freshInEnough |= failedLately;
        slowInEnough = Math.max(slowInEnough, p99Lately);
      }
    }
    return enough.isEmpty() ? merged(all, allTargets, freshInAll, slowInAll)
        : worstOf(enough, enoughTargets, freshInEnough, slowInEnough);
  }

  private Reading worstOf(List<SliSnapshot> snapshots, List<Target> targets, boolean fresh, long freshP99) {
    double serverShare = 0, rateLimitedShare = 0, worstFailure = 0;
    long p99 = 0, total = 0, p50 = 0, p95 = 0;
    Target worst = null, slowest = null;
    for (int i = 0; i < snapshots.size(); i++) {
      SliSnapshot s = snapshots.get(i);
      serverShare = Math.max(serverShare, s.serverErrorRate());
      rateLimitedShare = Math.max(rateLimitedShare, s.rateLimitedRate());
      double failure = s.serverErrorRate() + s.rateLimitedRate();
      if (failure > worstFailure) {
        worstFailure = failure;
        worst = targets.get(i);
      }
      if (s.p99Millis() > p99) {
        p99 = s.p99Millis();
        slowest = targets.get(i);
      }
      p50 = Math.max(p50, s.p50Millis());
      p95 = Math.max(p95, s.p95Millis());
      total += s.total();
    }
    // a window of `total` calls with the worst shares, rounded to whole calls
    long serverErrors = Math.round(serverShare * total);
    long rateLimited = Math.min(total - serverErrors, Math.round(rateLimitedShare * total));
    SliSnapshot calls = new SliSnapshot(window.toNanos() / 1e9, total - serverErrors - rateLimited, serverErrors,
        rateLimited, 0, p50, p95, p99);
    return new Reading(calls, worst != null ? worst : slowest, fresh, freshP99);
  }

  private Reading merged(List<SliSnapshot> snapshots, List<Target> targets, boolean fresh, long freshP99) {
    long successes = 0, serverErrors = 0, rateLimited = 0, clientErrors = 0, p50 = 0, p95 = 0, p99 = 0;
    Target worst = null;
    long worstFailures = 0;
    for (int i = 0; i < snapshots.size(); i++) {
      SliSnapshot s = snapshots.get(i);
      successes += s.successes();
      serverErrors += s.serverErrors();
      rateLimited += s.rateLimited();
      clientErrors += s.clientErrors();
      p50 = Math.max(p50, s.p50Millis());
      p95 = Math.max(p95, s.p95Millis());
      p99 = Math.max(p99, s.p99Millis());
      long failures = s.serverErrors() + s.rateLimited();
      if (failures > worstFailures) {
        worst = targets.get(i);
        worstFailures = failures;
      }
    }
    return new Reading(new SliSnapshot(window.toNanos() / 1e9, successes, serverErrors, rateLimited, clientErrors, p50,
        p95, p99), worst, fresh, freshP99);
  }

  private SlidingWindow window(Target target) {
    SlidingWindow existing = windows.get(target);
    if (existing != null) {
      return existing;
    }
    boolean own = known.contains(target) || room();
    return windows.computeIfAbsent(own ? target : new Target(target.upstream(), "*"),
        t -> new SlidingWindow(window, 12, ticker));
  }

  /** Whether an other target may have a window of its own now, after dropping idle ones. */
  private boolean room() {
    if (windows.size() < known.size() + MAX_OTHERS) {
      return true;
    }
    dropIdle(ticker.nanos());
    return windows.size() < known.size() + MAX_OTHERS;
  }

  /**
   * Drops the own windows of other targets with no call for twice the SLI window; at most once
   * until the oldest of them comes of age.
   */
  private void dropIdle(long now) {
    if (now - nextSweep < 0) {
      return;
    }
    long next = now + idleNanos;
    for (Map.Entry<Target, Long> e : lastCall.entrySet()) {
      long due = e.getValue() + idleNanos;
      if (now - due < 0) {
        next = due - next < 0 ? due : next;
      } else if (lastCall.remove(e.getKey(), e.getValue())) {
        windows.remove(e.getKey());
        evictions.increment();
      }
    }
    nextSweep = next;
  }
}
