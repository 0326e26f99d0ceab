package dev.levee.gateway.health;

import dev.levee.anthropic.stream.StreamStats;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.budget.RetryBudget;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.gateway.cache.ResponseCache;
import dev.levee.gateway.tier.TierBoard;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Levee's numbers in Prometheus form ({@code GET /metrics}), through Micrometer:
 *
 * <ul>
 *   <li>{@code levee_requests_total{outcome,tier}} — client requests and how they ended;
 *   <li>{@code levee_request_upstream_calls} — upstream calls per admitted request (count, sum, max);
 *   <li>{@code levee_upstream_calls_total{target,outcome}} and {@code levee_upstream_latency_seconds{target}};
 *   <li>{@code levee_circuit_state{target}} — 0 closed, 1 half-open, 2 open;
 *   <li>{@code levee_retry_budget_tokens}, {@code levee_tier{feature}} (0 = T0 … 3 = T3, the
 *       worst of its aliases), {@code levee_tier_alias{feature,alias}}, {@code
 *       levee_target_cooling_seconds{target}}, {@code levee_tier_transitions_total};
 *   <li>{@code levee_streams_*_total}, {@code levee_stream_resumes_total}, {@code
 *       levee_stream_ttft_p95_seconds}, {@code levee_stream_duplicate_event_rate};
 *   <li>{@code levee_cache_*} — entries, bytes, lookups by result;
 *   <li>{@code levee_state_evictions_total{table}} — entries of client-named targets dropped
 *       from a bounded table ({@code breakers}, {@code target_stats}).
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class Metrics implements CallObserver {

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Breakers breakers;
  private final Set<Target> configured;
  private final Set<Target> circuits = ConcurrentHashMap.newKeySet();

  public Metrics(Set<Target> configured, Breakers breakers, TargetStats stats, RetryBudget budget, TierBoard tiers,
      StreamStats streams, ResponseCache cache) {
    this.breakers = breakers;
    this.configured = Set.copyOf(configured);
    configured.forEach(this::watchCircuit);
    FunctionCounter.builder("levee_state_evictions", breakers, Breakers::evictions).tag("table", "breakers")
        .description("Entries of client-named targets dropped from a bounded table (least used or idle)")
        .register(registry);
    FunctionCounter.builder("levee_state_evictions", stats, TargetStats::evictions).tag("table", "target_stats")
        .description("Entries of client-named targets dropped from a bounded table (least used or idle)")
        .register(registry);
    Gauge.builder("levee_retry_budget_tokens", budget, RetryBudget::remaining)
        .description("Tokens left in the retry budget").register(registry);
    tiers.status().forEach(f -> {
      String feature = f.path("feature").asText();
      Gauge.builder("levee_tier", tiers, t -> t.tier(feature).ordinal()).tag("feature", feature)
          .description("Degradation tier of the feature (its worst alias): 0 = T0 full ... 3 = T3 static").register(registry);
    });
    // issue 10 (tiers): the tier of each feature through each alias, and each target's rate-limit cooldown
    tiers.configuredScopes().forEach((feature, aliases) -> aliases.forEach(alias ->
        Gauge.builder("levee_tier_alias", tiers, t -> t.currentTier(feature, alias).ordinal())
            .tag("feature", feature).tag("alias", alias)
            .description("Degradation tier of the feature through the alias: 0 = T0 full ... 3 = T3 static")
            .register(registry)));
    configured.forEach(target -> Gauge.builder("levee_target_cooling_seconds", tiers,
            t -> t.cooldowns().remaining(target).toMillis() / 1000.0).tag("target", target.id())
        .description("Time left on the target's rate-limit cooldown (retry-after of its last 429)").register(registry));
    FunctionCounter.builder("levee_tier_transitions", tiers, TierBoard::transitions)
        .description("Tier transitions, all features").register(registry);
    FunctionCounter.builder("levee_streams_started", streams, s -> s.snapshot().started())
        .description("Streams that reached their commit point").register(registry);
    FunctionCounter.builder("levee_streams_completed", streams, s -> s.snapshot().completed())
        .description("Streams that ended with message_stop").register(registry);
    FunctionCounter.builder("levee_streams_failed", streams, s -> s.snapshot().failed())
        .description("Streams that ended with an error event").register(registry);
    FunctionCounter.builder("levee_stream_resumes", streams, s -> s.snapshot().recoveries())
        .description("Continuations spliced into streams").register(registry);
    Gauge.builder("levee_stream_ttft_p95_seconds", streams, s -> s.snapshot().ttftP95Millis() / 1000.0)
        .description("Time to first token, p95 over the last minute").register(registry);
    Gauge.builder("levee_stream_duplicate_event_rate", streams, s -> s.snapshot().duplicateRate())
        .description("Share of content deltas that repeated the previous one").register(registry);
    Gauge.builder("levee_cache_entries", cache, ResponseCache::size).description("Answers in the cache").register(registry);
    Gauge.builder("levee_cache_bytes", cache, ResponseCache::weightedBytes).description("Bytes held by the cache")
        .register(registry);
    for (String result : new String[] {"fresh", "stale", "miss"}) {
      FunctionCounter.builder("levee_cache_lookups", cache, c -> switch (result) {
            case "fresh" -> c.stats().fresh();
            case "stale" -> c.stats().stale();
            default -> c.stats().misses();
          })
          .tag("result", result).description("Cache lookups by result").register(registry);
    }
  }

  /** One finished client request. */
  public void request(String outcome, String tier) {
    Counter.builder("levee_requests").tag("outcome", outcome).tag("tier", tier == null ? "-" : tier)
        .description("Client requests by how they ended and the tier they were admitted at").register(registry).increment();
  }

  /** The upstream calls one admitted client request made, a stream's recovery included. */
  public void upstreamCallsPerRequest(int calls) {
    DistributionSummary.builder("levee_request_upstream_calls")
        .description("Upstream calls per client request, retries, fallbacks and stream recovery included")
        .register(registry).record(calls);
  }

  @Override
  public void onSuccess(Target target, Duration latency) {
    call(target, "success", latency);
  }

  @Override
  public void onFailure(Target target, Failure failure, Duration latency) {
    call(target, failure.kind().name().toLowerCase(Locale.ROOT), latency);
  }

  private void call(Target target, String outcome, Duration latency) {
    // a client may name any model: only configured targets get series of their own
    String label = configured.contains(target) ? target.id() : target.upstream() + "/*";
    Counter.builder("levee_upstream_calls").tag("target", label).tag("outcome", outcome)
        .description("Upstream calls by target and outcome").register(registry).increment();
    Timer.builder("levee_upstream_latency").tag("target", label)
        .description("Time to the answer (JSON) or first token (streams)").register(registry).record(latency);
  }

  private void watchCircuit(Target target) {
    if (circuits.add(target)) {
      Gauge.builder("levee_circuit_state", breakers, b -> code(b.of(target).state())).tag("target", target.id())
          .description("0 closed, 1 half-open, 2 open").register(registry);
    }
  }

  private static int code(CircuitState state) {
    return switch (state) {
      case CLOSED -> 0;
      case HALF_OPEN -> 1;
      case OPEN -> 2;
    };
  }

  /** The registry behind {@link #scrape()}, for meters of other parts (the cluster link). */
  public io.micrometer.core.instrument.MeterRegistry registry() {
    return registry;
  }

  /** The Prometheus text exposition. */
  public String scrape() {
    return registry.scrape();
  }
}
