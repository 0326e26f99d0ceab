package dev.levee.gateway.health;

import dev.levee.anthropic.error.RefusalReason;
import dev.levee.anthropic.message.TokenUsage;
import dev.levee.anthropic.stream.StreamStats;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Transition;
import dev.levee.core.budget.Budget;
import dev.levee.core.chain.AttemptRecord;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.RetryBudgets;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.route.PriceTable;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.cache.ResponseCache;
import dev.levee.gateway.tier.TierBoard;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.core.metrics.Info;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Levee's numbers in Prometheus form ({@code GET /metrics}), through Micrometer. Every metric,
 * its labels and their bounded values are listed in {@code docs/observability.md}.
 *
 * <p>Three writers: the Recorder stage ({@link #request}, {@link #upstream}, {@link #streamed},
 * {@link #usage}, {@link #cacheMiss}), once per client request from its one access record; the
 * fallback chain, once per upstream call (this is its {@link CallObserver}); and the breakers
 * ({@link #onTransition}). Gauges and function counters read the policies at scrape time ({@link
 * #watch}). Meters are built once per label combination and kept; the request path only finds
 * and increments them.
 *
 * <p>Thread-safe. {@link #close} releases the JVM GC listener.
 */
public final class Metrics implements CallObserver, AutoCloseable {

  /** Histogram buckets for client durations, attempts and TTFT: 50 ms to 120 s. */
  static final Duration[] BUCKETS = {
      Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
      Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10),
      Duration.ofSeconds(20), Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofSeconds(120)};

  private static final List<String> TOKEN_TYPES = List.of("input", "output", "cache_read", "cache_creation");
  private static final List<String> SOURCES = List.of("primary", "fallback", "cache", "semantic", "stale", "static", "replay", "none");
  private static final List<String> CACHE_RESULTS = List.of("hit", "semantic", "stale", "miss");

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final MetricLabels labels;
  private final CostMeter cost;
  private final Ticker ticker;
  private final JvmGcMetrics gc = new JvmGcMetrics();

  // built once per label combination and kept; the request path finds them without building a key
  private final Map<String, AtomicReferenceArray<Counter>> requests = new ConcurrentHashMap<>(); // outcome, endpoint and tier slot
  private final Map<String, Map<String, RequestMeters>> byAliasAndFeature = new ConcurrentHashMap<>();
  private final Map<Target, TargetMeters> byTarget = new ConcurrentHashMap<>(); // configured targets only
  private final Map<String, TargetMeters> byTargetLabel = new ConcurrentHashMap<>();
  private final AtomicReferenceArray<Counter> refusals = // reason and endpoint slot
      new AtomicReferenceArray<>(RefusalReason.values().length * Endpoint.values().length);
  private final Map<String, AtomicReferenceArray<Counter>> tokens = new ConcurrentHashMap<>(); // model, type
  private final Map<String, Counter> cacheLookups = new HashMap<>();
  private final Map<String, Counter> hedges = new ConcurrentHashMap<>();
  private final Map<String, Counter> bookkeepingFailures = new ConcurrentHashMap<>();
  private final Map<List<String>, Counter> routeChoices = new ConcurrentHashMap<>();
  private final Map<List<String>, Counter> transitions = new ConcurrentHashMap<>();
  private final Map<List<String>, Counter> dollars = new ConcurrentHashMap<>();
  private final DistributionSummary upstreamCalls;
  private volatile TierClock tierClock;

  /**
   * @param labels the label values that get series of their own
   * @param prices the price table that turns usage into dollars (per 1k tokens; the gateway
   *     passes {@code RoutingSettings#priceTable()}, the router's: the defaults with the configured
   *     {@code routing.prices})
   * @param ticker time for the cost window and the tier clock
   */
  public Metrics(MetricLabels labels, PriceTable prices, Ticker ticker) {
    this.labels = labels;
    this.ticker = ticker;
    this.cost = new CostMeter(prices, ticker);
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    // an info metric: Micrometer would strip "_info" from a gauge's name, the Prometheus client keeps it
    Info.builder().name("levee_build_info").help("Levee's version and the Java runtime; always 1")
        .labelNames("version", "java_version").register(registry.getPrometheusRegistry())
        .addLabelValues(version(), System.getProperty("java.version", "unknown"));
    upstreamCalls = DistributionSummary.builder("levee_request_upstream_calls")
        .description("Upstream calls per client request, retries, fallbacks and stream recovery included")
        .register(registry);
    for (String result : CACHE_RESULTS) {
      cacheLookups.put(result, Counter.builder("levee_cache_lookups").tag("result", result)
          .description("Cache lookups by result as the request saw them: hit, semantic, stale, miss").register(registry));
    }
    List.of("won", "lost", "failed").forEach(this::hedgeCounter); // every series from the start, for dashboards
    for (Target target : labels.targets()) {
      String id = target.id();
      for (CircuitState from : CircuitState.values()) {
        for (CircuitState to : CircuitState.values()) {
          if (from != to) {
            transitionCounter(id, from, to);
          }
        }
      }
      TargetMeters meters = targetMeters(id);
      byTarget.put(target, meters);
      meters.attemptDuration();
      meters.cooldowns();
      meters.retries();
      for (int outcome = 0; outcome <= FailureKind.values().length; outcome++) {
        meters.calls(outcome);
      }
      meters.ttft();
    }
    labels.aliases().forEach(alias -> {
      fallbackCounter(alias);
      recoveryCounter(alias);
    });
    labels.models().forEach(model -> {
      for (int type = 0; type < TOKEN_TYPES.size(); type++) {
        tokenCounter(model, type);
      }
    });
  }

  /**
   * Registers the gauges and function counters that read the gateway's policies at scrape time.
   */
  public void watch(Breakers breakers, TargetStats stats, RetryBudgets budgets, TierBoard tiers, StreamStats streams,
      ResponseCache cache, Readiness readiness) {
    FunctionCounter.builder("levee_state_evictions", breakers, Breakers::evictions).tag("table", "breakers")
        .description("Entries of client-named targets dropped from a bounded table (least used or idle)")
        .register(registry);
    FunctionCounter.builder("levee_state_evictions", stats, TargetStats::evictions).tag("table", "target_stats")
        .description("Entries of client-named targets dropped from a bounded table (least used or idle)")
        .register(registry);
    // the gate's state: the cluster's shared circuit while Redis answers, this replica's breaker otherwise
    labels.targets().forEach(target -> Gauge.builder("levee_circuit_state", breakers, b -> code(b.gate(target).state()))
        .tag("target", target.id()).description("0 closed, 1 half-open, 2 open (the circuit calls obey, shared in a cluster)")
        .register(registry));
    budgets.configured().forEach((target, budget) -> watchBudget(target.id(), budget));
    watchBudget(RetryBudgets.OVERFLOW, budgets.overflow()); // the bucket of every target a client named itself
    Gauge.builder("levee_ready", readiness, r -> r.isReady() ? 1 : 0)
        .description("1 when /health/ready answers 200").register(registry);
    watchTiers(tiers);
    FunctionCounter.builder("levee_streams_started", streams, s -> s.snapshot().started())
        .description("Streams that reached their commit point").register(registry);
    FunctionCounter.builder("levee_streams_completed", streams, s -> s.snapshot().completed())
        .description("Streams that ended with message_stop").register(registry);
    FunctionCounter.builder("levee_streams_failed", streams, s -> s.snapshot().failed())
        .description("Streams that ended with an error event").register(registry);
    FunctionCounter.builder("levee_stream_resumes", streams, s -> s.snapshot().recoveries())
        .description("Continuations spliced into streams").register(registry);
    FunctionCounter.builder("levee_stream_duplicate_events", streams, StreamStats::duplicates)
        .description("Suspected duplicate content deltas at splices (dropped when configured)").register(registry);
    Gauge.builder("levee_stream_ttft_p95_seconds", streams, s -> s.snapshot().ttftP95Millis() / 1000.0)
        .description("Time to first token, p95 over the last minute").register(registry);
    Gauge.builder("levee_stream_duplicate_event_rate", streams, s -> s.snapshot().duplicateRate())
        .description("Share of content deltas that repeated the previous one").register(registry);
    Gauge.builder("levee_cache_entries", cache, ResponseCache::size).description("Answers in the cache").register(registry);
    Gauge.builder("levee_cache_bytes", cache, ResponseCache::weightedBytes).description("Bytes held by the cache")
        .register(registry);
  }

  /**
   * The gauges of one retry-budget bucket, labelled with its target ({@value RetryBudgets#OVERFLOW}:
   * the overflow bucket, named as {@code /health} names it). Tokens are the cluster's shared bucket
   * under {@code cluster:} (while Redis answers); refusals are this replica's.
   */
  private void watchBudget(String target, Budget budget) {
    Gauge.builder("levee_retry_budget_tokens", budget, Budget::remaining).tag("target", target)
        .description("Tokens left in the target's retry budget").register(registry);
    Gauge.builder("levee_retry_budget_max_tokens", budget, Budget::max).tag("target", target)
        .description("The capacity of the target's retry budget").register(registry);
    FunctionCounter.builder("levee_retry_budget_denied", budget, Budget::denied).tag("target", target)
        .description("Calls the target's retry budget refused this replica: retries, hedges and stream recoveries")
        .register(registry);
  }

  private void watchTiers(TierBoard tiers) {
    Set<String> features = tiers.configuredScopes().keySet();
    features.forEach(feature -> Gauge.builder("levee_tier", tiers, t -> t.tier(feature).ordinal())
        .tag("feature", feature)
        .description("Degradation tier of the feature (its worst configured alias): 0 = T0 full ... 3 = T3 static")
        .register(registry));
    features.forEach(feature -> Gauge.builder("levee_tier_other_models", tiers, t -> t.otherModelsTier(feature).ordinal())
        .tag("feature", feature)
        .description("Worst tier of the feature's model names no alias names (not in levee_tier): 0 = T0 ... 3 = T3")
        .register(registry));
    FunctionCounter.builder("levee_state_evictions", tiers, TierBoard::scopeEvictions).tag("table", "tier_scopes")
        .description("Entries of client-named targets dropped from a bounded table (least used or idle)").register(registry);
    FunctionCounter.builder("levee_state_evictions", tiers, TierBoard::windowEvictions).tag("table", "tier_windows")
        .description("Entries of client-named targets dropped from a bounded table (least used or idle)").register(registry);
    tiers.configuredScopes().forEach((feature, aliases) -> aliases.forEach(alias ->
        Gauge.builder("levee_tier_alias", tiers, t -> t.currentTier(feature, alias).ordinal())
            .tag("feature", feature).tag("alias", alias)
            .description("Degradation tier of the feature through the alias: 0 = T0 full ... 3 = T3 static")
            .register(registry)));
    labels.targets().forEach(target -> Gauge.builder("levee_target_cooling_seconds", tiers,
            t -> t.cooldowns().remaining(target).toMillis() / 1000.0).tag("target", target.id())
        .description("Time left on the target's rate-limit cooldown (retry-after of its last 429)").register(registry));
    // each target's health as the tiers' step-down signals read it (its SLI window of API calls)
    labels.targets().forEach(target -> {
      Gauge.builder("levee_target_server_error_share", tiers, t -> t.targetCalls(target).serverErrorRate())
          .tag("target", target.id()).description("Share of the target's calls in the SLI window that failed (5xx, 529, timeouts)")
          .register(registry);
      Gauge.builder("levee_target_rate_limited_share", tiers, t -> t.targetCalls(target).rateLimitedRate())
          .tag("target", target.id()).description("Share of the target's calls in the SLI window answered 429")
          .register(registry);
      Gauge.builder("levee_target_p99_seconds", tiers, t -> t.targetCalls(target).p99Millis() / 1000.0)
          .tag("target", target.id()).description("p99 time to first token of the target's successful streamed calls in the SLI window")
          .register(registry);
    });
    FunctionCounter.builder("levee_tier_transitions", tiers, TierBoard::transitions)
        .description("Tier transitions, all features").register(registry);
    TierClock clock = new TierClock(features, tiers::tier, ticker);
    tierClock = clock; // function counters hold what they read weakly
    for (String feature : features) {
      for (Tier tier : Tier.values()) {
        FunctionCounter.builder("levee_tier_seconds", clock, c -> c.seconds(feature, tier))
            .tag("feature", feature).tag("tier", tier.name())
            .description("Time the feature spent in each tier (sampled at each scrape)").register(registry);
      }
    }
  }

  /** Registers {@code levee_requests_in_flight}, read from the server's admission. */
  public void watchInFlight(IntSupplier inFlight) {
    Gauge.builder("levee_requests_in_flight", inFlight, IntSupplier::getAsInt).strongReference(true)
        .description("API requests being served now").register(registry);
  }

  /**
   * {@code levee_request_body_bytes}: bytes of request bodies the server holds now, against {@code
   * server.max-body-memory} ({@code RequestGuard.bodyBytesHeld}).
   */
  public void watchBodyBytes(LongSupplier held) {
    Gauge.builder("levee_request_body_bytes", held, LongSupplier::getAsLong).strongReference(true)
        .description("bytes of request bodies held now (server.max-body-memory)").baseUnit("bytes").register(registry);
  }

  private LongSupplier silentClosed; // held for its function counter

  /**
   * {@code levee_connections_closed_silent_total}: client connections the server closed having
   * received no byte on them, at its header deadline or idle timeout (closed without an answer).
   *
   * @param closed the running count ({@code VirtualThreadServer.silentConnectionsClosed})
   */
  public void watchSilentConnections(LongSupplier closed) {
    silentClosed = closed; // a function counter holds its object weakly
    FunctionCounter.builder("levee_connections_closed_silent", closed, LongSupplier::getAsLong)
        .description("client connections closed having sent nothing").register(registry);
  }

  private LongSupplier lateReaders; // held for its function counter

  /**
   * {@code levee_upstream_late_reads_total}: limits on upstream calls (head deadline, JSON body
   * timeout, time to first token, stream idle) that ran out while the upstream's answer waited for
   * Levee to read it, and so waited for Levee instead of failing the call as the upstream's timeout.
   * Rising: the gateway is starved of CPU (docs/benchmarks.md, "A cold gateway on a starved box").
   */
  public void watchLateReaders(LongSupplier waited) {
    lateReaders = waited; // a function counter holds its object weakly
    FunctionCounter.builder("levee_upstream_late_reads", waited, LongSupplier::getAsLong)
        .description("upstream call limits that waited for Levee to read an answer already there").register(registry);
  }

  // ---- the Recorder stage, once per client request ----

  /** One finished client request, from its access record. */
  public void request(ServedRequest r) {
    int tier = r.tier() == null ? NO_TIER : r.tier().ordinal();
    String alias = labels.alias(r.alias());
    String feature = labels.feature(r.feature());
    requestCounter(r.outcome(), tier, r.endpoint()).increment(); // "refused" for a refusal, "replayed" for an idempotent replay
    RequestMeters meters = requestMeters(alias, feature);
    meters.duration(tier, r.status(), r.endpoint()).record(r.took());
    if (r.endpoint().answers()) { // a job's state or a batch's listing is no answer of the Messages API
      meters.answers(r.source()).increment();
    }
    if (r.refusal() != null) {
      refusalCounter(r.refusal(), r.endpoint()).increment();
    }
    if (r.refused()) {
      return;
    }
    upstreamCalls.record(r.calls());
    String cached = r.cacheResult();
    if (cached != null && cacheLookups.containsKey(cached)) {
      cacheLookups.get(cached).increment();
    }
    if (r.fallback()) {
      meters.fallbacks().increment();
    }
  }

  /** The steps one request's chain took: calls after a failed call to the same target count as retries. */
  public void upstream(List<AttemptRecord> steps) {
    Target previousFailed = null;
    for (AttemptRecord step : steps) {
      if (!step.called()) {
        continue;
      }
      if (step.target().equals(previousFailed)) {
        targetMeters(step.target()).retries().increment();
      }
      previousFailed = step.step() == AttemptRecord.Step.FAILED ? step.target() : null;
    }
  }

  /** A client stream ended: the target that committed it, its time to first token, continuations spliced in. */
  public void streamed(String alias, Target committed, Duration timeToFirstToken, int recovered) {
    targetMeters(committed).ttft().record(timeToFirstToken);
    if (recovered > 0) {
      recoveryCounter(labels.alias(alias)).increment(recovered);
    }
  }

  /**
   * A part of stage 6's bookkeeping (or a call observer) threw and was skipped for one request:
   * {@code levee_bookkeeping_failures_total{part}}. {@code part} is one of a few fixed words.
   */
  public void bookkeepingFailed(String part) {
    bookkeepingFailures.computeIfAbsent(part, p -> Counter.builder("levee_bookkeeping_failures").tag("part", p)
        .description("Parts of a request's bookkeeping (stage 6) or call observers that threw and were skipped")
        .register(registry)).increment();
  }

  /** A T2 cache lookup found nothing. */
  public void cacheMiss() {
    cacheLookups.get("miss").increment();
  }

  /** An answer's usage: tokens by model, and dollars by feature, tier and model. */
  public void usage(String feature, Tier tier, String model, TokenUsage usage) {
    if (usage.isEmpty()) {
      return;
    }
    String m = labels.model(model);
    countTokens(m, 0, usage.input());
    countTokens(m, 1, usage.output());
    countTokens(m, 2, usage.cacheRead());
    countTokens(m, 3, usage.cacheCreation());
    cost.price(model, usage).ifPresent(usd -> {
      String f = labels.feature(feature);
      dollars.computeIfAbsent(List.of(f, tier.name(), m), k -> Counter.builder("levee_cost_usd")
          .tag("feature", k.get(0)).tag("tier", k.get(1)).tag("model", k.get(2))
          .description("Estimated spend in US dollars at list prices").register(registry)).increment(usd);
      cost.spent(f, tier, usd);
    });
  }

  /** The spend of the last hour, for {@code /health}. */
  public CostMeter cost() {
    return cost;
  }

  // ---- hedging and routing, from the Recorder ----

  /**
   * A request's hedge ended: {@code won} (it answered first), {@code lost} (aborted), {@code
   * failed}, or {@code budget_denied} (its target's retry budget refused to start it); counted as
   * {@code levee_hedges_total{outcome}}.
   */
  public void hedge(String outcome) {
    hedgeCounter(outcome).increment();
  }

  private Counter hedgeCounter(String outcome) {
    return hedges.computeIfAbsent(outcome, o -> Counter.builder("levee_hedges").tag("outcome", o)
        .description("Hedged requests by how their hedge ended: won, lost (aborted), failed, budget_denied (not started)").register(registry));
  }

  /** The scoring router put {@code target} first for a request to {@code alias} (a configured, routed alias). */
  public void routed(String alias, Target target) {
    routeChoices.computeIfAbsent(List.of(labels.alias(alias), labels.model(target.model())), k ->
        Counter.builder("levee_route_choices").tag("alias", k.get(0)).tag("model", k.get(1))
            .description("Targets the scoring router chose first, by alias").register(registry)).increment();
  }

  // ---- the chain's observer, once per upstream call ----

  @Override
  public void onSuccess(Target target, Duration latency) {
    targetMeters(target).called(SUCCESS, latency);
  }

  @Override
  public void onFailure(Target target, Failure failure, Duration latency) {
    TargetMeters meters = targetMeters(target);
    meters.called(1 + failure.kind().ordinal(), latency);
    if (failure.kind() == FailureKind.RATE_LIMITED && failure.retryAfter().isPresent()) {
      meters.cooldowns().increment(); // as RateLimitCooldowns starts one
    }
  }

  // ---- the breakers ----

  /** A breaker changed state. */
  public void onTransition(Transition t) {
    String target = labels.targets().stream().anyMatch(x -> x.id().equals(t.breaker())) ? t.breaker()
        : t.breaker().substring(0, Math.max(0, t.breaker().indexOf('/'))) + "/*";
    transitionCounter(target, t.from(), t.to()).increment();
  }

  // ---- meters ----

  /** The slot of a request refused before its tier was known, after the tiers' ordinals. */
  private static final int NO_TIER = Tier.values().length;
  private static final int ENDPOINTS = Endpoint.values().length;

  /** The outcome slot of a successful call; a failure's is {@code 1 +} its kind's ordinal. */
  private static final int SUCCESS = 0;

  /** {@code levee_attempts_total} and the old name it replaces, counted together. */
  private record Calls(Counter attempts, Counter upstreamCalls) {
    void increment() {
      attempts.increment();
      upstreamCalls.increment();
    }
  }

  /**
   * The meters of one target label ({@link MetricLabels#target}), each registered on first use
   * and kept. Registering is idempotent (the registry hands back the meter an id has), so two
   * threads racing to fill a slot keep the same meter.
   */
  private final class TargetMeters {
    private final String label;
    private final AtomicReferenceArray<Calls> calls = new AtomicReferenceArray<>(1 + FailureKind.values().length);
    private volatile Timer attemptDuration;
    private volatile Timer upstreamLatency;
    private volatile Timer ttft;
    private volatile Counter retries;
    private volatile Counter cooldowns;

    TargetMeters(String label) {
      this.label = label;
    }

    /** One upstream call: its outcome ({@link #SUCCESS} or 1 + the failure's kind) and latency. */
    void called(int outcome, Duration latency) {
      calls(outcome).increment();
      attemptDuration().record(latency);
      upstreamLatency().record(latency);
    }

    Calls calls(int outcome) {
      Calls c = calls.get(outcome);
      if (c == null) {
        String name = outcome == SUCCESS ? "success" : FailureKind.values()[outcome - 1].name().toLowerCase(Locale.ROOT);
        c = new Calls(
            Counter.builder("levee_attempts").tag("target", label).tag("outcome", name)
                .description("Upstream calls by target and outcome kind").register(registry),
            Counter.builder("levee_upstream_calls").tag("target", label).tag("outcome", name)
                .description("Kept for old dashboards: prefer levee_attempts_total").register(registry));
        calls.set(outcome, c);
      }
      return c;
    }

    Timer attemptDuration() {
      Timer t = attemptDuration;
      if (t == null) {
        attemptDuration = t = Timer.builder("levee_attempt_duration").tag("target", label)
            .serviceLevelObjectives(BUCKETS)
            .description("Time to the answer (JSON), the first token (stream) or the failure").register(registry);
      }
      return t;
    }

    Timer upstreamLatency() {
      Timer t = upstreamLatency;
      if (t == null) {
        upstreamLatency = t = Timer.builder("levee_upstream_latency").tag("target", label)
            .description("Kept for old dashboards: prefer levee_attempt_duration_seconds").register(registry);
      }
      return t;
    }

    Timer ttft() {
      Timer t = ttft;
      if (t == null) {
        ttft = t = Timer.builder("levee_ttft").tag("target", label).serviceLevelObjectives(BUCKETS)
            .description("Streams: time to first token of the attempt that committed").register(registry);
      }
      return t;
    }

    Counter retries() {
      Counter c = retries;
      if (c == null) {
        retries = c = Counter.builder("levee_retries").tag("target", label)
            .description("Calls to a target after a failed call to it, within one request").register(registry);
      }
      return c;
    }

    Counter cooldowns() {
      Counter c = cooldowns;
      if (c == null) {
        cooldowns = c = Counter.builder("levee_cooldowns").tag("target", label)
            .description("429s with retry-after that started or extended a rate-limit cooldown").register(registry);
      }
      return c;
    }
  }

  /** A configured target's meters without building its label; any other target's by its folded label. */
  private TargetMeters targetMeters(Target target) {
    TargetMeters meters = byTarget.get(target);
    return meters != null ? meters : targetMeters(labels.target(target));
  }

  private TargetMeters targetMeters(String label) {
    return byTargetLabel.computeIfAbsent(label, TargetMeters::new);
  }

  /**
   * The meters of the requests of one alias label and one feature label: their durations by tier
   * and status class, their answers by source, and their alias's fallbacks; each registered on
   * first use (idempotently, as {@link TargetMeters}).
   */
  private final class RequestMeters {
    private static final int STATUS_CLASSES = 5;

    private final String alias;
    private final String feature;
    private final AtomicReferenceArray<Timer> durations =
        new AtomicReferenceArray<>(ENDPOINTS * (NO_TIER + 1) * STATUS_CLASSES); // endpoint, tier slot, status class
    private final AtomicReferenceArray<Counter> answers = new AtomicReferenceArray<>(SOURCES.size());
    private volatile Counter fallbacks;

    RequestMeters(String alias, String feature) {
      this.alias = alias;
      this.feature = feature;
    }

    Timer duration(int tier, int status, Endpoint endpoint) {
      int hundreds = status / 100;
      int statusClass = hundreds >= 1 && hundreds <= 4 ? hundreds - 1 : STATUS_CLASSES - 1; // as MetricLabels.statusClass
      int slot = (endpoint.ordinal() * (NO_TIER + 1) + tier) * STATUS_CLASSES + statusClass;
      Timer t = durations.get(slot);
      if (t == null) {
        t = Timer.builder("levee_request_duration").tag("alias", alias).tag("feature", feature)
            .tag("endpoint", endpoint.label())
            .tag("tier", tier == NO_TIER ? MetricLabels.NONE : Tier.values()[tier].name())
            .tag("status_class", MetricLabels.statusClass(status)).serviceLevelObjectives(BUCKETS)
            .description("Client request duration, arrival to the last byte").register(registry);
        durations.set(slot, t);
      }
      return t;
    }

    Counter answers(String source) {
      int slot = SOURCES.indexOf(source);
      Counter c = answers.get(slot);
      if (c == null) {
        c = Counter.builder("levee_answers").tag("feature", feature).tag("source", source)
            .description("Answers by source: primary, fallback, cache, semantic, stale, static, replay, none").register(registry);
        answers.set(slot, c);
      }
      return c;
    }

    Counter fallbacks() {
      Counter c = fallbacks;
      if (c == null) {
        fallbacks = c = fallbackCounter(alias);
      }
      return c;
    }
  }

  private RequestMeters requestMeters(String alias, String feature) {
    Map<String, RequestMeters> byFeature = byAliasAndFeature.get(alias);
    if (byFeature == null) {
      byFeature = byAliasAndFeature.computeIfAbsent(alias, a -> new ConcurrentHashMap<>());
    }
    RequestMeters meters = byFeature.get(feature);
    return meters != null ? meters : byFeature.computeIfAbsent(feature, f -> new RequestMeters(alias, f));
  }

  private Counter refusalCounter(RefusalReason reason, Endpoint endpoint) {
    int slot = reason.ordinal() * ENDPOINTS + endpoint.ordinal();
    Counter c = refusals.get(slot);
    if (c == null) { // two threads may build it at once: Micrometer hands both the one registered
      c = Counter.builder("levee_refusals").tag("reason", reason.code()).tag("endpoint", endpoint.label())
          .description("Requests Levee refused, by why (the access log's refusal=) and their endpoint")
          .register(registry);
      refusals.set(slot, c);
    }
    return c;
  }

  private Counter requestCounter(String outcome, int tier, Endpoint endpoint) {
    AtomicReferenceArray<Counter> byTier = requests.get(outcome);
    if (byTier == null) {
      byTier = requests.computeIfAbsent(outcome, o -> new AtomicReferenceArray<>(ENDPOINTS * (NO_TIER + 1)));
    }
    int slot = endpoint.ordinal() * (NO_TIER + 1) + tier;
    Counter c = byTier.get(slot);
    if (c == null) {
      c = Counter.builder("levee_requests").tag("outcome", outcome).tag("endpoint", endpoint.label())
          .tag("tier", tier == NO_TIER ? MetricLabels.NONE : Tier.values()[tier].name())
          .description("Client requests by how they ended, their endpoint and the tier they were admitted at")
          .register(registry);
      byTier.set(slot, c);
    }
    return c;
  }

  private Counter fallbackCounter(String alias) {
    return Counter.builder("levee_fallbacks").tag("alias", alias)
        .description("Answers given by a target other than the chain's first").register(registry);
  }

  private Counter recoveryCounter(String alias) {
    return Counter.builder("levee_stream_recoveries").tag("alias", alias)
        .description("Continuations spliced into client streams").register(registry);
  }

  /** Counts {@code count} tokens of {@code model} (a label) of type {@code TOKEN_TYPES[type]}, when positive. */
  private void countTokens(String model, int type, long count) {
    if (count > 0) {
      tokenCounter(model, type).increment(count);
    }
  }

  private Counter tokenCounter(String model, int type) {
    AtomicReferenceArray<Counter> byType = tokens.get(model);
    if (byType == null) {
      byType = tokens.computeIfAbsent(model, m -> new AtomicReferenceArray<>(TOKEN_TYPES.size()));
    }
    Counter c = byType.get(type);
    if (c == null) {
      c = Counter.builder("levee_tokens").tag("model", model).tag("type", TOKEN_TYPES.get(type))
          .description("Tokens the upstream reported, by model and type").register(registry);
      byType.set(type, c);
    }
    return c;
  }

  private Counter transitionCounter(String target, CircuitState from, CircuitState to) {
    return transitions.computeIfAbsent(List.of(target, from.name(), to.name()), k ->
        Counter.builder("levee_circuit_transitions").tag("target", k.get(0)).tag("from", k.get(1)).tag("to", k.get(2))
            .description("Circuit breaker transitions").register(registry));
  }

  private static int code(CircuitState state) {
    return switch (state) {
      case CLOSED -> 0;
      case HALF_OPEN -> 1;
      case OPEN -> 2;
    };
  }

  /** The registry, for parts that bind their own meters (the job store's {@code levee_jobs…}). */
  public io.micrometer.core.instrument.MeterRegistry registry() {
    return registry;
  }

  /** Levee's version from the build ({@code levee-build.properties}), else {@code dev}. */
  static String version() {
    try (InputStream in = Metrics.class.getResourceAsStream("/levee-build.properties")) {
      if (in == null) {
        return "dev";
      }
      Properties p = new Properties();
      p.load(in);
      String v = p.getProperty("version", "dev");
      return v.startsWith("${") ? "dev" : v;
    } catch (IOException e) {
      return "dev";
    }
  }

  /** The Prometheus text exposition. */
  public String scrape() {
    return registry.scrape();
  }

  @Override
  public void close() {
    gc.close();
  }
}
