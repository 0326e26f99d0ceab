package dev.levee.gateway.jobs;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job store on {@code /metrics}:
 *
 * <ul>
 *   <li>{@code levee_jobs{feature,state}} — jobs in the store now, by feature and state ({@code
 *       queued}, {@code running}, {@code succeeded}, {@code failed}, {@code cancelled}, {@code
 *       expired}); with PostgreSQL every replica reports the shared store;
 *   <li>{@code levee_jobs_oldest_queued_seconds{feature}} — age of the feature's oldest queued
 *       job, 0 when none waits (the alert: work is not draining);
 *   <li>{@code levee_jobs_finished_total} — jobs this gateway's workers brought to an end.
 * </ul>
 *
 * <p>The store is read with one grouped query, at most once per {@code refresh} however many
 * gauges are scraped; a failed read keeps the last numbers (and is logged). Thread-safe.
 */
public final class JobMetrics {

  private static final Logger LOG = LoggerFactory.getLogger(JobMetrics.class);

  private final JobStore store;
  private final InstantSource wall;
  private final Duration refresh;
  private final ReentrantLock lock = new ReentrantLock();
  private volatile Map<String, Map<JobState, JobStore.Count>> counts = Map.of();
  private volatile Instant readAt = Instant.MIN;

  public JobMetrics(JobStore store, InstantSource wall, Duration refresh) {
    this.store = store;
    this.wall = wall;
    this.refresh = refresh;
  }

  /**
   * Registers the gauges of every feature in {@code features} and the finished counter of {@code
   * workers}.
   */
  public void bindTo(MeterRegistry registry, Collection<String> features, JobWorkers workers) {
    for (String feature : features) {
      for (JobState state : JobState.values()) {
        Gauge.builder("levee_jobs", this, m -> m.count(feature, state).map(JobStore.Count::jobs).orElse(0L))
            .tag("feature", feature).tag("state", state.wire())
            .description("Jobs in the store now, by feature and state").register(registry);
      }
      Gauge.builder("levee_jobs_oldest_queued_seconds", this, m -> m.oldestQueuedSeconds(feature))
          .tag("feature", feature).description("Age of the feature's oldest queued job; 0 when none waits")
          .register(registry);
    }
    FunctionCounter.builder("levee_jobs_finished", workers, JobWorkers::finished)
        .description("Jobs this gateway's workers brought to an end (a result recorded)").register(registry);
  }

  double oldestQueuedSeconds(String feature) {
    return count(feature, JobState.QUEUED)
        .map(c -> Math.max(0, Duration.between(c.oldest(), wall.instant()).toMillis() / 1000.0)).orElse(0.0);
  }

  java.util.Optional<JobStore.Count> count(String feature, JobState state) {
    return java.util.Optional.ofNullable(fresh().getOrDefault(feature, Map.of()).get(state));
  }

  private Map<String, Map<JobState, JobStore.Count>> fresh() {
    if (wall.instant().isBefore(readAt.plus(refresh)) || !lock.tryLock()) {
      return counts; // read recently, or another scrape is reading now
    }
    try {
      List<JobStore.Count> read = store.counts();
      counts = read.stream().collect(Collectors.groupingBy(JobStore.Count::feature,
          Collectors.toMap(JobStore.Count::state, c -> c)));
      readAt = wall.instant();
    } catch (RuntimeException e) {
      LOG.warn("cannot read job counts for /metrics: {}", e.getMessage());
      readAt = wall.instant();
    } finally {
      lock.unlock();
    }
    return counts;
  }
}
