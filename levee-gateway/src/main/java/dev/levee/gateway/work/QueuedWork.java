package dev.levee.gateway.work;

import dev.levee.anthropic.upstream.Upstreams;
import dev.levee.core.chain.FallbackChain;
import dev.levee.core.time.Sleeper;
import dev.levee.gateway.Aliases;
import dev.levee.gateway.batches.BatchStore;
import dev.levee.gateway.batches.BatchesHandler;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.idempotency.IdempotencyKeys;
import dev.levee.gateway.idempotency.IdempotentExchange;
import dev.levee.gateway.jobs.ChainJobExecutor;
import dev.levee.gateway.jobs.Database;
import dev.levee.gateway.jobs.JobExecutor;
import dev.levee.gateway.jobs.JobStore;
import dev.levee.gateway.jobs.JobsHandler;
import dev.levee.gateway.jobs.OutageQueue;
import dev.levee.gateway.jobs.JobWorkers;
import dev.levee.gateway.jobs.KeySeal;
import dev.levee.gateway.jobs.PauseGate;
import dev.levee.gateway.jobs.QueueConfig;
import dev.levee.gateway.tier.TierBoard;
import java.time.Duration;
import java.time.InstantSource;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Everything durable about work the gateway accepted, wired once: the database, the job store,
 * the worker pool, the Message Batches endpoints and idempotency keys. The gateway holds one and
 * closes it on stop (workers first, then the database).
 */
public final class QueuedWork implements AutoCloseable {

  private final Database db;
  private final JobStore jobs;
  private final JobWorkers workers;
  private final BatchesHandler batches;
  private final IdempotentExchange idempotency;
  private final OutageQueue outage;
  private final JobsHandler jobsHandler;

  private QueuedWork(Database db, JobStore jobs, JobWorkers workers, BatchesHandler batches,
      IdempotentExchange idempotency, OutageQueue outage) {
    this.outage = outage;
    this.jobsHandler = new JobsHandler(jobs);
    this.db = db;
    this.jobs = jobs;
    this.workers = workers;
    this.batches = batches;
    this.idempotency = idempotency;
  }

  /**
   * Opens the store {@code config.queue()} names, migrates it and starts the workers; jobs run
   * through {@link ChainJobExecutor} (the chain, breakers and budget interactive requests use).
   *
   * @throws IllegalStateException when the store cannot be opened or migrated
   * @throws IllegalArgumentException when {@code queue.secret} is malformed
   */
  public static QueuedWork start(GatewayConfig config, Aliases routes, FallbackChain chain, Upstreams upstreams,
      TierBoard tiers, InstantSource wall, Sleeper sleeper) {
    JobExecutor executor = new ChainJobExecutor(routes, chain, upstreams, config.policy().deadline());
    return start(config, routes, chain, upstreams, tiers, wall, sleeper, executor);
  }

  /** As {@link #start(GatewayConfig, Aliases, FallbackChain, Upstreams, TierBoard, InstantSource, Sleeper)} with another executor. */
  public static QueuedWork start(GatewayConfig config, Aliases routes, FallbackChain chain, Upstreams upstreams,
      TierBoard tiers, InstantSource wall, Sleeper sleeper, JobExecutor executor) {
    QueueConfig queue = config.queue();
    KeySeal seal = KeySeal.of(queue.secret());
    Database db = Database.open(queue);
    try {
      JobStore jobs = new JobStore(db);
      Set<String> features = new LinkedHashSet<>(config.features().keySet());
      features.add(dev.levee.gateway.config.Feature.DEFAULT_NAME);
      PauseGate gate = new PauseGate(routes, config.models().keySet(), chain.breakers(), tiers, features);
      JobWorkers workers = new JobWorkers(jobs, executor, gate::paused, seal, wall, queue);
      Duration deadline = config.policy().deadline();
      IdempotencyKeys keys = new IdempotencyKeys(db, wall, sleeper, queue.batchTtl(), deadline.multipliedBy(2));
      IdempotentExchange idempotency = new IdempotentExchange(keys, wall, deadline, config.server().maxBody());
      Predicate<String> forwardsClientKey =
          alias -> routes.resolve(alias).targets().stream().anyMatch(upstreams::forwardsClientKey);
      BatchesHandler batches = new BatchesHandler(new BatchStore(jobs), jobs, seal, forwardsClientKey,
          tiers::knows, wall, queue.batchTtl(), workers::wake, idempotency);
      OutageQueue outage = new OutageQueue(Set.copyOf(queue.onOutage()), jobs, seal, forwardsClientKey, wall,
          queue.batchTtl(), workers::wake, queue.callbacks());
      workers.start();
      return new QueuedWork(db, jobs, workers, batches, idempotency, outage);
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
  }

  /** {@code /v1/messages/batches…}. */
  public BatchesHandler batches() {
    return batches;
  }

  /** Outage queueing for interactive requests ({@code queue.on-outage}). */
  public OutageQueue outage() {
    return outage;
  }

  /** {@code GET /v1/levee/jobs/{id}}. */
  public JobsHandler jobsHandler() {
    return jobsHandler;
  }

  /** The {@code idempotency-key} hook around an exchange. */
  public IdempotentExchange idempotency() {
    return idempotency;
  }

  public JobStore jobs() {
    return jobs;
  }

  public JobWorkers workers() {
    return workers;
  }

  @Override
  public void close() {
    workers.close();
    db.close();
  }
}
