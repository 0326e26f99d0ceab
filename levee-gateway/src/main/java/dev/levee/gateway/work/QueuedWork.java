package dev.levee.gateway.work;

import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Upstreams;
import dev.levee.core.chain.FallbackChain;
import dev.levee.core.chain.ReservedPermit;
import dev.levee.core.time.Sleeper;
import dev.levee.gateway.Aliases;
import dev.levee.gateway.batches.BatchStore;
import dev.levee.gateway.batches.BatchesHandler;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.idempotency.IdempotencyKeys;
import dev.levee.gateway.idempotency.IdempotentExchange;
import dev.levee.gateway.jobs.Database;
import dev.levee.gateway.jobs.JobExecutor;
import dev.levee.gateway.jobs.JobMetrics;
import dev.levee.gateway.jobs.JobRequest;
import dev.levee.gateway.config.Feature;
import dev.levee.gateway.jobs.JobStore;
import dev.levee.gateway.jobs.JobsAdmin;
import dev.levee.gateway.jobs.JobsHandler;
import dev.levee.gateway.jobs.OutageQueue;
import dev.levee.gateway.jobs.InteractiveTraffic;
import dev.levee.gateway.jobs.JobWorkers;
import dev.levee.gateway.jobs.KeySeal;
import dev.levee.gateway.jobs.PauseGate;
import dev.levee.gateway.jobs.QueueConfig;
import dev.levee.gateway.tier.TierBoard;
import dev.levee.core.chain.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Everything durable about work the gateway accepted, wired once: the database, the job store,
 * the worker pool, the Message Batches endpoints, outage queueing and idempotency keys. The gateway
 * opens it, starts its workers once the request path exists, and closes it on stop (workers
 * first, then the database).
 */
public final class QueuedWork implements AutoCloseable {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(QueuedWork.class);

  private final Database db;
  private final JobStore jobs;
  private final JobWorkers workers;
  private final BatchesHandler batches;
  private final IdempotentExchange idempotency;
  private final OutageQueue outage;
  private final JobsHandler jobsHandler;

  private final Executor executor;
  private final PauseGate gate;

  private QueuedWork(Database db, JobStore jobs, JobWorkers workers, BatchesHandler batches,
      IdempotentExchange idempotency, OutageQueue outage, Executor executor, JobsHandler jobsHandler,
      PauseGate gate) {
    this.gate = gate;
    this.executor = executor;
    this.outage = outage;
    this.jobsHandler = jobsHandler;
    this.db = db;
    this.jobs = jobs;
    this.workers = workers;
    this.batches = batches;
    this.idempotency = idempotency;
  }

  /**
   * Opens the store {@code config.queue()} names and migrates it; the workers wait for {@link
   * #startWorkers} (the executor is the gateway's request path, built after this).
   *
   * @throws IllegalStateException when the store cannot be opened or migrated
   * @throws IllegalArgumentException when {@code queue.secret} is malformed
   */
  public static QueuedWork open(GatewayConfig config, Aliases routes, FallbackChain chain, Upstreams upstreams,
      TierBoard tiers, InstantSource wall, Sleeper sleeper) {
    Set<String> queueing = new LinkedHashSet<>(config.queue().onOutage()); // the older spelling
    Map<String, String> callbacks = new LinkedHashMap<>(config.queue().callbacks());
    config.features().forEach((name, feature) -> {
      if (feature.queues()) {
        queueing.add(name);
      }
      if (feature.callbackUrl() != null) {
        callbacks.put(name, feature.callbackUrl());
      }
    });
    QueueConfig queue = config.queue().withCallbacks(callbacks);
    KeySeal seal = KeySeal.of(queue.secret());
    Database db = Database.open(queue);
    try {
      JobStore jobs = new JobStore(db, queue.replicaId());
      Set<String> features = new LinkedHashSet<>(config.features().keySet());
      features.add(Feature.DEFAULT_NAME);
      PauseGate gate = new PauseGate(routes, config.models().keySet(), chain.breakers(), tiers, features,
          queueing::contains);
      Executor executor = new Executor();
      JobWorkers workers = new JobWorkers(jobs, executor, gate::paused, seal, wall, queue);
      Duration deadline = config.policy().deadline();
      IdempotencyKeys keys = new IdempotencyKeys(db, wall, sleeper, queue.batchTtl(), deadline.multipliedBy(2))
          .withJobs(jobs);
      workers.alsoKeepUp(keys::sweepAll); // keys past their TTL, off the request path
      IdempotentExchange idempotency = new IdempotentExchange(keys, wall, deadline, config.server().limits());
      Predicate<String> forwardsClientKey =
          alias -> routes.resolve(alias).targets().stream().anyMatch(upstreams::forwardsClientKey);
      List<String> keepingKeys = new ArrayList<>(config.models().keySet().stream().filter(forwardsClientKey).toList());
      if (upstreams.forwardsClientKey(new Target(routes.defaultUpstream(), "*"))) {
        keepingKeys.add("models named directly (upstream " + routes.defaultUpstream() + ")");
      }
      secretWarning(seal.enabled(), keepingKeys, queueing).ifPresent(LOG::warn);
      // without a key, work for such an alias can only end with the upstream's 401: batches refuse
      // it, the outage queue does not keep it (JobRequest.clientKey: an empty key is none)
      Predicate<String> needsClientKey =
          alias -> routes.resolve(alias).targets().stream().allMatch(upstreams::forwardsClientKey);
      BatchesHandler batches = new BatchesHandler(new BatchStore(jobs), jobs, seal, forwardsClientKey, needsClientKey,
          model -> routes.resolve(model).configured(), tiers::knows, wall, queue.batchTtl(), workers::wake,
          idempotency.forBodiesUpTo(BatchesHandler.MAX_BYTES),
          config.server().limits());
      OutageQueue outage = new OutageQueue(queueing, jobs, seal, forwardsClientKey, needsClientKey, wall,
          queue.batchTtl(), workers::wake, queue.callbacks());
      return new QueuedWork(db, jobs, workers, batches, idempotency, outage, executor,
          new JobsHandler(jobs, gate::paused, wall), gate);
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
  }

  /**
   * The start-up warning when {@code queue.secret} is unset while some alias's upstream has no key
   * of its own: its batches are refused (403 {@code permission_error} naming {@code queue.secret}) and its
   * requests in {@code queueing} features are not queued on an outage. Empty when the secret is set
   * or no alias needs a client key kept.
   *
   * @param keepingKeys the aliases (and the directly named models, described) whose calls carry the client's key
   * @param queueing the features that queue on an outage
   */
  static Optional<String> secretWarning(boolean secretSet, List<String> keepingKeys, Set<String> queueing) {
    if (secretSet || keepingKeys.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of("queue.secret is not set, and " + String.join(", ", keepingKeys)
        + " forward the client's API key (no api-key of their own): Message Batches for them are refused (403 "
        + "permission_error)" + (queueing.isEmpty() ? "" : " and features " + queueing + " cannot queue them on an outage")
        + ", because queued work would have to keep the key and Levee never keeps it in clear. To allow it, "
        + KeySeal.HOW_TO_ENABLE + ".");
  }

  /**
   * Starts draining the store, each job through {@code executor} — the gateway's own request path
   * ({@code MessagesHandler.runJob}), so queued work meets the same tiers, cooldowns, breakers and
   * budget as interactive requests — paced by the interactive requests reported to {@link #traffic}.
   */
  public QueuedWork startWorkers(JobExecutor executor) {
    this.executor.delegate = executor;
    workers.start();
    return this;
  }

  /** Where the gateway reports its interactive requests: the workers step aside for them ({@code queue.pacing}). */
  public InteractiveTraffic traffic() {
    return workers.traffic();
  }

  /** The executor the workers call, set once before they start. */
  private static final class Executor implements JobExecutor {
    private volatile JobExecutor delegate;

    @Override
    public Outcome execute(JobRequest request, String apiKey, Cancellation lost, ReservedPermit trial) {
      return delegate.execute(request, apiKey, lost, trial);
    }
  }

  private volatile JobMetrics jobMetrics;

  /**
   * Puts the job store's numbers on {@code /metrics} ({@link JobMetrics}) for every feature of
   * {@code config} (the default one included); read at most once a second.
   */
  public void bindMetrics(io.micrometer.core.instrument.MeterRegistry registry, GatewayConfig config,
      InstantSource wall) {
    Set<String> features = new LinkedHashSet<>(config.features().keySet());
    features.add(Feature.DEFAULT_NAME);
    // kept: Micrometer holds a gauge's state object weakly, and a collected one drops its series
    jobMetrics = new JobMetrics(jobs, wall, Duration.ofSeconds(1));
    jobMetrics.bindTo(registry, features, workers);
  }

  /** {@code /v1/messages/batches…}. */
  public BatchesHandler batches() {
    return batches;
  }

  /** Outage queueing for interactive requests ({@code features.<name>.on-outage: queue}). */
  public OutageQueue outage() {
    return outage;
  }

  /**
   * What the workers hold back now: the answer the dispatcher gets on each poll (by default once a
   * second) and {@code GET /v1/levee/jobs/{id}} explains a wait with.
   */
  public PauseGate.Paused paused() {
    return gate.paused();
  }

  /** {@code GET /v1/levee/jobs/{id}}. */
  public JobsHandler jobsHandler() {
    return jobsHandler;
  }

  /** {@code /admin/jobs…}: list and cancel jobs, every tenant's ({@link JobsAdmin}). */
  public JobsAdmin admin(InstantSource wall) {
    return new JobsAdmin(jobs, workers, gate::paused, wall);
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

  /** No queued job starts from now on; running ones go on ({@link JobWorkers#stopClaiming}). */
  public void stopClaiming() {
    workers.stopClaiming();
  }

  /** {@link #close(java.time.Duration)} with the workers' default grace (5 s). */
  @Override
  public void close() {
    workers.close();
    db.close();
  }

  /**
   * Stops the workers, giving running jobs {@code grace} to finish and handing back the rest
   * ({@link JobWorkers#close(java.time.Duration)}), then closes the store.
   */
  public void close(java.time.Duration grace) {
    workers.close(grace);
    db.close();
  }
}
