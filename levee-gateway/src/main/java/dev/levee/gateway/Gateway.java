package dev.levee.gateway;

import dev.levee.anthropic.error.ErrorClassifier;
import dev.levee.anthropic.server.VirtualThreadServer;
import dev.levee.anthropic.stream.StreamEngine;
import dev.levee.anthropic.stream.StreamStats;
import dev.levee.anthropic.upstream.Endpoint;
import dev.levee.anthropic.upstream.UpstreamClient;
import dev.levee.anthropic.upstream.Upstreams;
import dev.levee.anthropic.upstream.Watchdog;
import dev.levee.core.breaker.Transition;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.ChainPolicy;
import dev.levee.core.chain.FallbackChain;
import dev.levee.core.chain.RetryBudgets;
import dev.levee.core.chain.Target;
import dev.levee.core.route.Circuits;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.cache.MiniLmEmbedder;
import dev.levee.gateway.cache.ResponseCache;
import dev.levee.gateway.cache.SemanticCache;
import dev.levee.gateway.cluster.Cluster;
import dev.levee.gateway.config.Feature;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.health.GuardedObservers;
import dev.levee.gateway.health.HealthReport;
import dev.levee.gateway.health.MetricLabels;
import dev.levee.gateway.health.Metrics;
import dev.levee.gateway.health.Readiness;
import dev.levee.gateway.health.TargetStats;
import dev.levee.gateway.pipeline.MessagesHandler;
import dev.levee.gateway.pipeline.LeveeHeaders;
import dev.levee.gateway.pipeline.RequestIds;
import dev.levee.gateway.route.ScoreRouting;
import dev.levee.gateway.server.DrainDelay;
import dev.levee.gateway.server.ServerLanes;
import dev.levee.gateway.tier.TierBoard;
import dev.levee.gateway.work.QueuedWork;
import dev.levee.gateway.trace.Tracing;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.eclipse.jetty.server.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running gateway: one HTTP server speaking the Anthropic Messages API, in front of the
 * configured upstreams. {@link #start} wires the policies (one breaker and one retry budget per
 * configured target, the fallback chain) and starts listening; {@link #close} stops.
 */
public final class Gateway implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

  private final Server server;
  private final FallbackChain chain;
  private final UpstreamClient client;
  private final TierBoard tiers;
  private final QueuedWork work;
  private final Metrics metrics;
  private final Readiness readiness;
  private final Tracing tracing;
  private final Cluster cluster; // null when cluster: is not configured
  private final Duration shutdownGrace; // server.shutdown-grace: requests in flight and running jobs share it
  private final DrainDelay drainDelay; // server.drain-delay: not ready, still serving, before the stop proper
  private final Ticker ticker;
  private final MessagesHandler messages;

  private Gateway(Server server, FallbackChain chain, UpstreamClient client, TierBoard tiers, QueuedWork work,
      Metrics metrics, Readiness readiness, Tracing tracing, Cluster cluster, Duration shutdownGrace,
      DrainDelay drainDelay, Ticker ticker, MessagesHandler messages) {
    this.shutdownGrace = shutdownGrace;
    this.drainDelay = drainDelay;
    this.messages = messages;
    this.ticker = ticker;
    this.work = work;
    this.tracing = tracing;
    this.cluster = cluster;
    this.server = server;
    this.chain = chain;
    this.client = client;
    this.tiers = tiers;
    this.metrics = metrics;
    this.readiness = readiness;
  }

  /**
   * Starts a gateway for {@code config} on real time.
   *
   * @throws Exception when the server cannot start (e.g. the port is taken)
   */
  public static Gateway start(GatewayConfig config) throws Exception {
    return start(config, GatewayClock.system());
  }

  /**
   * Starts a gateway whose policies run on {@code clock} (tests use virtual time); traces as the
   * environment says ({@link Tracing#fromEnvironment}: off unless {@code OTEL_TRACES_EXPORTER=otlp}).
   */
  public static Gateway start(GatewayConfig config, GatewayClock clock) throws Exception {
    return start(config, clock, Tracing.fromEnvironment(System::getenv));
  }

  /** Starts a gateway that writes its traces through {@code tracing} (closed with the gateway). */
  public static Gateway start(GatewayConfig config, GatewayClock clock, Tracing tracing) throws Exception {
    Ticker ticker = clock.ticker();
    GatewayConfig.Policy policy = config.policy();
    Aliases aliases = new Aliases(config);
    Readiness readiness = new Readiness();
    MetricLabels labels = MetricLabels.of(config, aliases.configuredTargets());
    Set<Target> configured = labels.targets(); // every alias's chain and every feature's reduced target
    Metrics metrics = new Metrics(labels, config.routing().priceTable(), ticker); // the router's prices, as configured
    TierBoard tiers = new TierBoard(config, ticker, clock.sleeper(), clock.wall(), clock.scheduler());
    TargetStats stats = new TargetStats(configured, ticker);
    Breakers breakers = policy.breaker().enabled()
        ? new Breakers(policy.breaker().config(), ticker, t -> {
            logTransition(t);
            metrics.onTransition(t);
            tiers.onTransition(t); // a circuit closed after its trials: the target's SLI window starts afresh
            stats.onTransition(t); // and so does its /health window
          }, configured)
        : Breakers.disabled(ticker);
    Set<Target> budgeted = new LinkedHashSet<>(configured); // a bucket each
    RetryBudgets budgets = RetryBudgets.local(budgeted, policy.retryBudget().max(), policy.retryBudget().ratio());
    Cluster cluster = config.cluster().enabled()
        ? new Cluster(config.cluster(), ticker, config.tiers().evaluateEvery().multipliedBy(3))
        : null;
    if (cluster != null) { // replicas share breakers, cooldowns, the retry budgets and tiers (docs/production.md)
      if (policy.breaker().enabled()) {
        breakers.shareThrough(cluster.gates(policy.attemptTimeout()));
        cluster.onBreakerClosed(t -> { // whichever replica's trial closed it: the windows start afresh here too
          tiers.onTransition(t);
          stats.onTransition(t);
        });
      }
      budgets = cluster.budgets(budgeted, policy.retryBudget().max(), policy.retryBudget().ratio());
      tiers.cooldowns().shareThrough(cluster.cooldownSharing());
      tiers.shareThrough(cluster.tiers());
    }
    StreamStats streamStats = new StreamStats(ticker);
    ResponseCache cache = new ResponseCache(
        new ResponseCache.Config(config.cache().maxBytes(), config.cache().maxStaleness()), ticker);
    if (cluster != null && config.cache().shared()) {
      cache.shareThrough(cluster.responseCache(config.cache().maxStaleness()));
    }
    tiers.watchCircuits(breakers::gate); // a scope steps up only into circuits a trial has tested; its requests probe them
    metrics.watch(breakers, stats, budgets, tiers, streamStats, cache, readiness);
    if (cluster != null) {
      cluster.link().bindTo(metrics.registry());
    }
    ScoreRouting routing = new ScoreRouting(config.routing(), ticker, clock.wall(), clock.sleeper(),
        Circuits.of(breakers), tiers.cooldowns()::cooling, metrics::routed, configured);
    if (cluster != null) { // replicas score on merged router statistics (docs/production.md)
      routing.statistics().shareThrough(cluster.routerStatistics(routing.statistics(), clock.wall()));
    }
    ChainPolicy chainPolicy = new ChainPolicy(policy.retry().policy(), policy.attemptTimeout(), policy.minAttemptTime());
    FallbackChain chain = new FallbackChain(chainPolicy, breakers, budgets,
        GuardedObservers.of(metrics::bookkeepingFailed, new GuardedObservers.Named("target_stats", stats),
            new GuardedObservers.Named("tiers", tiers), new GuardedObservers.Named("metrics", metrics),
            new GuardedObservers.Named("routing", routing.observer())), ticker,
        clock.sleeper(), clock.random())
        .withHedging(clock.scheduler(), hedge -> Thread.ofVirtual().name("levee-hedge").start(hedge));
    Duration connectTimeout = config.upstreams().values().stream()
        .map(GatewayConfig.Upstream::connectTimeout).max(Duration::compareTo).orElse(Duration.ofSeconds(5));
    UpstreamClient client = new UpstreamClient(connectTimeout);
    Watchdog watchdog = new Watchdog(ticker, clock.scheduler());
    ErrorClassifier classifier = new ErrorClassifier(clock.wall());
    Map<String, Endpoint> endpoints = new HashMap<>();
    config.upstreams().forEach((name, u) -> endpoints.put(name, new Endpoint(u.url(), u.apiKey())));
    Function<Target, Endpoint> endpointOf = target -> endpoints.get(target.upstream());
    Upstreams upstreams = new Upstreams(endpointOf, client, classifier, watchdog, ticker);
    StreamEngine streams = new StreamEngine(chain, upstreams, policy.stream().settings(), aliases::prefill, streamStats);
    SemanticCache semantic = config.features().values().stream().anyMatch(Feature::semantic)
        ? new SemanticCache(MiniLmEmbedder.instance(), SemanticCache.Config.DEFAULT) // thresholds are per feature
        : null;
    QueuedWork work = QueuedWork.open(config, aliases, chain, upstreams, tiers, clock.wall(), clock.sleeper());
    RequestIds ids = new RequestIds();
    MessagesHandler messages = MessagesHandler.create(new MessagesHandler.Parts(config, aliases, ids, chain, streams,
        upstreams, tiers, cache, semantic, clock.random(), metrics, work.outage(), stats, routing, tracing));
    messages.reportTrafficTo(work.traffic()); // queued work steps aside for client requests
    work.startWorkers(messages::runJob); // and runs through the same seven stages
    work.bindMetrics(metrics.registry(), config, clock.wall());
    HealthReport health = new HealthReport(configured, breakers, stats, budgets, streamStats, tiers,
        routing.statistics(), metrics.cost(), cluster == null ? Cluster::off : cluster::status);
    AdminHandler admin = new AdminHandler(config.admin().token(), tiers, aliases, routing, work.admin(clock.wall()));
    HttpDispatcher dispatcher = new HttpDispatcher(ids, messages, health, admin, metrics,
        models(aliases, endpoints, client, ticker, clock.wall().instant()), work, readiness, new BrowserCalls(config.cors()));
    Server server = VirtualThreadServer.create(config.server().host(), config.server().port(),
        config.server().idleTimeout(), "levee-gateway", dispatcher,
        config.server().limits(), ServerLanes.GATEWAY.namedBy(headers -> {
          String id = headers.get(LeveeHeaders.REQUEST_ID); // named by the dispatcher
          if (id == null) { // refused at the door: findable in the logs like any answer
            id = ids.next();
            headers.put(LeveeHeaders.REQUEST_ID, id);
          }
          headers.put(LeveeHeaders.ANSWER_REQUEST_ID, id); // where the SDKs look
          return id;
        }).heardBy(messages.door()) // in the access log and metrics: refusals, and clients gone mid-upload
            .answeringFromHead(dispatcher.headAnswers())); // refusals on the headers alone: before the body, no 100 Continue
    metrics.watchInFlight(VirtualThreadServer.guard(server)::inFlight);
    metrics.watchBodyBytes(VirtualThreadServer.guard(server)::bodyBytesHeld);
    metrics.watchLateReaders(() -> watchdog.lateReaders() + client.lateReaders());
    metrics.watchSilentConnections(() -> VirtualThreadServer.silentConnectionsClosed(server));
    try {
      server.start();
    } catch (Exception e) {
      work.close();
      if (cluster != null) {
        cluster.close();
      }
      throw e;
    }
    readiness.ready();
    LOG.info("Levee gateway listening on http://{}:{}; {}", config.server().host(), VirtualThreadServer.port(server),
        UpstreamProbe.where(config.upstreams()));
    Thread.ofVirtual().name("levee-upstream-probe").start(() ->
        UpstreamProbe.unreachable(config.upstreams(), connectTimeout).forEach(LOG::warn));
    config.server().doubtful().forEach(doubt -> LOG.warn("{}: is that meant?", doubt));
    return new Gateway(server, chain, client, tiers, work, metrics, readiness, tracing, cluster,
        config.server().limits().shutdownGrace(), new DrainDelay(config.server().drainDelay(), clock.scheduler()), ticker,
        messages);
  }

  /**
   * {@code /v1/models}: the aliases' model objects, dated by their first models' upstreams (else by
   * {@code loadedAt}), and the default upstream's list.
   */
  private static PassThrough models(Aliases aliases, Map<String, Endpoint> endpoints, UpstreamClient client,
      Ticker ticker, Instant loadedAt) {
    UpstreamGet get = new UpstreamGet(client);
    ReleaseDates dates = new ReleaseDates(aliases.firstTargets(), target -> endpoints.get(target.upstream()), get, ticker,
        loadedAt);
    AliasModels models = new AliasModels(aliases, dates);
    Endpoint upstream = endpoints.get(aliases.defaultUpstream());
    return new PassThrough(upstream, get, models, new ModelList(models, aliases.defaultUpstream(), upstream, get, dates));
  }

  /** The port the gateway listens on. */
  public int port() {
    return VirtualThreadServer.port(server);
  }

  /**
   * {@code http://127.0.0.1:port}: the loopback URL, for clients on this machine (a gateway bound
   * to another address is reached there by remote clients).
   */
  public URI baseUrl() {
    return URI.create("http://127.0.0.1:" + port());
  }

  /** The fallback chain (its breakers and retry budgets), for reports and tests. */
  public FallbackChain chain() {
    return chain;
  }

  /** Jobs, batches and idempotency keys. */
  public QueuedWork work() {
    return work;
  }

  /** The gateway's metrics (tests read them). */
  public Metrics metrics() {
    return metrics;
  }

  /** The degradation tiers of every feature. */
  public TierBoard tiers() {
    return tiers;
  }


  /** The shared state of this replica's cluster, or empty when {@code cluster:} is not configured. */
  public java.util.Optional<Cluster> cluster() {
    return java.util.Optional.ofNullable(cluster);
  }

  private static void logTransition(Transition t) {
    LOG.warn("circuit {} {} -> {}: {}", t.breaker(), t.from(), t.to(), t.reason());
  }

  /** Blocks until the server stops. */
  public void join() throws InterruptedException {
    server.join();
  }

  /**
   * Stops the gateway: not ready from now on, while for {@code server.drain-delay} (default 0 s)
   * everything is still served, new connections included ({@link DrainDelay}); then the listener
   * closes and no queued job starts; requests in flight and running jobs get {@code
   * server.shutdown-grace} (one window for both) to finish; requests still in flight are then ended
   * by the server, and jobs still running are handed back to the queue ({@link
   * QueuedWork#close(Duration)}); then the rest closes. A stop takes up to drain-delay +
   * shutdown-grace.
   */
  @Override
  public void close() throws Exception {
    drainDelay.begin(readiness); // /health/ready answers 503 from now on; served as before until the delay passed
    long start = ticker.nanos();
    work.stopClaiming(); // queued work stays queued: none starts only to be stopped
    VirtualThreadServer.shutdown(server); // drains within server.shutdown-grace (ServerLanes)
    // a stream's exchange completes before its stage 6: its bookkeeping must not meet closed stores
    if (!messages.awaitRequestsEnded(left(start))) {
      LOG.warn("shutdown: requests still recording after server.shutdown-grace; their bookkeeping may be lost");
    }
    work.close(left(start));
    tiers.close();
    client.close();
    metrics.close();
    tracing.close();
    if (cluster != null) {
      cluster.close();
    }
  }

  /** What is left of server.shutdown-grace since {@code start} (a ticker reading), at least zero. */
  private Duration left(long start) {
    Duration left = shutdownGrace.minusNanos(ticker.nanos() - start);
    return left.isNegative() ? Duration.ZERO : left;
  }
}
