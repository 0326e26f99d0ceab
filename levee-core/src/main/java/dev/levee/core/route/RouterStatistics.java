package dev.levee.core.route;

import dev.levee.core.bound.BoundedTable;
import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The router's per-target measurements, fed by every attempt outcome: as a {@link CallObserver}
 * it sits where the breakers and SLI windows are fed.
 *
 * <ul>
 *   <li><b>success</b>: an exponential moving average of outcomes (α = 0.1 by default: each
 *       outcome moves it a tenth of the way to 1 or 0), starting at 1.0 and ageing back towards
 *       1.0 with a half-life (default 10 minutes, see {@link StatisticsConfig#halfLife()}).
 *       Failures that say nothing of the target's health, the client's own errors and
 *       cancellations ({@link dev.levee.core.retry.FailureKind#countsForBreaker()} false), are not
 *       counted, as the breaker does not count them (DESIGN.md promise 5).
 *   <li><b>p95 latency</b> of successful calls (time to the answer, or to the first token of a
 *       stream) over a sliding window in an HdrHistogram (1 ms to 10 min, 2 significant digits,
 *       so within 1 %); the model's configured typical latency while the window is empty.
 * </ul>
 *
 * <p>Clients can name any model, so the table is a {@link BoundedTable} like the breakers': at
 * most {@link #MAX_TARGETS} targets besides the configured ones (pinned, as the breakers pin
 * them), the least used evicted first, and a target with no outcome
 * for {@link #idleFor} (ten half-lives, at least the latency window: its success has aged back
 * within 0.1 % of 1.0) forgotten; a forgotten target reads as one never called. Targets never share
 * an entry (review: past 1,000 targets, every new one shared its upstream's, so after weeks of
 * churn a new target got no statistics of its own). Reading is not a use. Thread-safe; each
 * target has its own lock.
 */
public final class RouterStatistics implements CallObserver {

  /** The most targets measured at once. */
  public static final int MAX_TARGETS = 1000;

  /** Half-lives without an outcome after which a target is forgotten. */
  static final int IDLE_HALF_LIVES = 10;

  private final StatisticsConfig config;
  private final Ticker ticker;
  private final Duration idleFor;
  private final BoundedTable<Target, TargetStatistics> byTarget;
  private volatile Sharing sharing = (target, local) -> local;

  /**
   * How replicas of one cluster merge their readings (issue 14): given this replica's own reading
   * of a target, the reading the router scores. Must not block for long (the request path calls
   * it); returns {@code local} when it knows nothing better.
   */
  @FunctionalInterface
  public interface Sharing {
    TargetReading merge(Target target, TargetReading local);
  }

  /** Statistics with no pinned target: every target may be evicted (tests, benchmarks, the simulator). */
  public RouterStatistics(StatisticsConfig config, Ticker ticker) {
    this(config, ticker, List.of());
  }

  /**
   * @param configured the configured targets (every alias's chain): pinned, never evicted nor
   *     forgotten, as the breakers pin them, so that a client naming thousands of models cannot
   *     push out a configured target's failures and make it read as never called (review 3)
   */
  public RouterStatistics(StatisticsConfig config, Ticker ticker, Collection<Target> configured) {
    this.config = Objects.requireNonNull(config, "config");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    Duration aged = config.halfLife().multipliedBy(IDLE_HALF_LIVES);
    this.idleFor = aged.compareTo(config.latencyWindow()) >= 0 ? aged : config.latencyWindow();
    this.byTarget = new BoundedTable<>(MAX_TARGETS, idleFor, ticker, configured,
        t -> new TargetStatistics(config, config.typicalLatencyOf(t.model())));
  }

  @Override
  public void onSuccess(Target target, Duration latency) {
    statisticsOf(target).record(true, latency, ticker.nanos());
  }

  @Override
  public void onFailure(Target target, Failure failure, Duration latency) {
    if (failure.kind().countsForBreaker()) {
      statisticsOf(target).record(false, latency, ticker.nanos());
    }
  }

  /**
   * What is known of {@code target} now, merged with the other replicas' readings when shared
   * ({@link #shareThrough}); a target never called reads 1.0 and its typical latency.
   */
  public TargetReading read(Target target) {
    return sharing.merge(target, readLocal(target));
  }

  /** What this replica alone has measured of {@code target} (what it publishes to the others). */
  public TargetReading readLocal(Target target) {
    TargetStatistics statistics = byTarget.peek(target);
    if (statistics == null) {
      return new TargetReading(1.0, config.typicalLatencyOf(target.model()), false, 0);
    }
    return statistics.read(ticker.nanos());
  }

  /** From now on {@link #read} merges this replica's readings through {@code sharing}. */
  public void shareThrough(Sharing sharing) {
    this.sharing = Objects.requireNonNull(sharing, "sharing");
  }

  /** Every target this replica measured so far (its own readings, unmerged), by id in id order, for health reports. */
  public Map<String, TargetReading> readings() {
    Map<String, TargetReading> readings = new TreeMap<>();
    long now = ticker.nanos();
    byTarget.entries().forEach((target, statistics) -> readings.put(target.id(), statistics.read(now)));
    return readings;
  }

  /** The configuration these statistics were built with. */
  public StatisticsConfig config() {
    return config;
  }

  /** How long a target without an outcome keeps its statistics. */
  public Duration idleFor() {
    return idleFor;
  }

  private TargetStatistics statisticsOf(Target target) {
    return byTarget.get(target);
  }
}
