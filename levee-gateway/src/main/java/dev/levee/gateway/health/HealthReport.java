package dev.levee.gateway.health;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.stream.StreamStats;
import dev.levee.gateway.tier.TierBoard;
import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.Gate;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.RetryBudgets;
import dev.levee.gateway.cluster.Cluster;
import dev.levee.gateway.cluster.ClusterStatus;
import java.util.function.Supplier;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.core.route.RouterStatistics;
import dev.levee.core.route.TargetReading;
import dev.levee.core.sli.SliSnapshot;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code GET /health}: computed from what Levee already knows, without calling any upstream.
 *
 * <p>Overall status, from the configured targets only (every alias's chain and every feature's
 * reduced target) that have evidence — called since start, or a circuit not CLOSED; one never called
 * is {@code unknown}, neither healthy nor not, and is left out ({@code unknown_targets} counts them):
 * {@code unhealthy} when every configured target with evidence has its circuit OPEN (answered with
 * HTTP 503, so load balancers take the instance out) — a total outage of the aliases in use, while
 * the others were never called, is not {@code degraded} (before, an uncalled alias's CLOSED circuit
 * counted as health); {@code degraded} when some such circuit is not CLOSED or such a target with at
 * least 5 calls in the last minute succeeded less than 95% of the time; else {@code healthy} (a
 * gateway nothing called yet included). A model name a client chose itself is listed
 * (with {@code "configured": false}, after the configured ones) once it carried a call or its
 * circuit is not CLOSED (a name only client errors answered, such as a 404 for an unknown model,
 * is not listed), but never moves the overall
 * status: one client's invented or broken name says nothing of the deployment (newcomer trial:
 * three OPEN client-named circuits kept {@code /health} degraded). Only with no configured target
 * at all (every request passed through) do client-named circuits decide it. {@code client_named}
 * counts them: {@code targets} (every one with evidence), {@code listed} (at most 50, those whose
 * circuit is not CLOSED first) and {@code not_closed} (of all). Per target: whether it
 * is {@code configured}, its health ({@link #health}), {@code calls} and {@code failed} in the last minute, circuit state, success rate and p95 latency over the last minute, and calls per minute; and what
 * the scoring router scores it with: {@code ema_success} (the ageing success EMA, 1.0 before any
 * outcome) and {@code ema_p95_ms} (p95 of successes over its 5-minute window, or the configured
 * typical latency when unmeasured, then {@code ema_p95_measured} is false); and its {@code
 * retry_budget}, with the gateway-wide {@code retry_budget} summary ({@link RetryBudgetReport}:
 * buckets drained out of all, and which). {@code cost}: the spend of the last hour and per hour
 * ({@link CostMeter}).
 */
public final class HealthReport {

  private static final int MIN_CALLS_FOR_RATE = 5;
  private static final double DEGRADED_BELOW = 0.95;

  private final Set<Target> configured;
  private final Breakers breakers;
  private final TargetStats stats;
  private final RetryBudgets budgets;
  private final StreamStats streams;
  private final TierBoard tiers;
  private final RouterStatistics router;
  private final CostMeter cost;
  private final Supplier<ClusterStatus> cluster;

  /**
   * @param router the scoring router's statistics, or null to leave its fields out
   * @param cost the spend meter, or null to leave {@code cost} out
   */
  public HealthReport(Set<Target> configured, Breakers breakers, TargetStats stats, RetryBudgets budgets,
      StreamStats streams, TierBoard tiers, RouterStatistics router, CostMeter cost,
      Supplier<ClusterStatus> cluster) {
    this.router = router;
    this.cluster = cluster == null ? Cluster::off : cluster;
    this.tiers = tiers;
    this.cost = cost;
    this.configured = configured;
    this.breakers = breakers;
    this.stats = stats;
    this.budgets = budgets;
    this.streams = streams;
  }

  /** The overall status word and the HTTP status to answer with. */
  public record Verdict(String status, int httpStatus) {}

  /** The report: its JSON body and the verdict it contains. */
  public record Report(ObjectNode body, Verdict verdict) {

    /**
     * This report from a gateway that is stopping but still serves ({@code server.drain-delay}):
     * HTTP 503, {@code status} {@code draining} and {@code ready} false, so that a balancer probing
     * {@code /health} stops routing too; the rest of the report as it is.
     */
    public Report draining() {
      ObjectNode copy = body.deepCopy();
      copy.put("status", "draining");
      copy.put("ready", false);
      return new Report(copy, new Verdict("draining", 503));
    }
  }

  /** Takes a snapshot of every target now. */
  public Report report() {
    ObjectNode root = Json.MAPPER.createObjectNode();
    ObjectNode targets = Json.MAPPER.createObjectNode();
    List<CircuitState> states = new ArrayList<>(); // the configured targets' with evidence: called, or a circuit not CLOSED
    List<CircuitState> others = new ArrayList<>(); // the client-named targets'
    int unknown = 0; // configured targets never called, circuit CLOSED: no evidence either way
    boolean lowSuccess = false;
    boolean othersLowSuccess = false;
    Map<Target, CircuitBreaker> circuits = breakers.circuits();
    ClusterStatus clusterNow = cluster.get();
    boolean shared = clusterNow.mode() != ClusterStatus.Mode.OFF;
    RetryBudgetReport retryBudgets = new RetryBudgetReport(budgets, clusterNow.shared());
    ClientNamed clientNamed = clientNamed(circuits);
    for (Target target : targets(clientNamed.targets())) {
      CircuitBreaker breaker = circuits.get(target);
      CircuitBreaker.Snapshot circuit = (breaker != null ? breaker : breakers.of(target)).snapshot();
      if (shared && configured.contains(target)) { // the cluster's circuit, not only this replica's
        Gate gate = breakers.gate(target);
        circuit = new CircuitBreaker.Snapshot(gate.state(), gate.openRemaining(), circuit.recentFailures());
      }
      SliSnapshot window = stats.snapshot(target);
      boolean low = window.total() >= MIN_CALLS_FOR_RATE && window.successRate() < DEGRADED_BELOW;
      boolean own = configured.contains(target);
      boolean evidence = stats.everCalled(target) || circuit.state() != CircuitState.CLOSED;
      if (own && !evidence) {
        unknown++;
      } else if (own) {
        states.add(circuit.state());
        lowSuccess |= low;
      } else {
        others.add(circuit.state());
        othersLowSuccess |= low;
      }
      ObjectNode t = targets.putObject(target.id());
      t.put("configured", own);
      t.put("health", health(stats.everCalled(target), stats.recoveredLately(target), circuit, window));
      t.put("calls", window.total()); // in the last minute, client errors not counted: the counts behind the word
      t.put("failed", window.serverErrors() + window.rateLimited());
      t.put("circuit", circuit.state().name());
      t.put("open_remaining_ms", circuit.openRemaining().toMillis());
      if (circuit.state() == CircuitState.OPEN && circuit.openRemaining().isZero()) {
        t.put("trial_ready", true); // the next call to this target will be a half-open trial
      }
      if (window.total() > 0) {
        t.put("success_rate", round(window.successRate()));
      } else {
        t.putNull("success_rate"); // no call in the last minute: no rate to show, not a perfect one
      }
      t.put("p95_ms", window.p95Millis());
      t.put("requests_per_minute", round(window.perMinute()));
      t.put("server_errors", window.serverErrors());
      t.put("rate_limited", window.rateLimited());
      if (router != null) { // issue 13: what the scoring router scores this target with
        TargetReading reading = router.read(target);
        t.put("ema_success", round(reading.success()));
        t.put("ema_p95_ms", reading.p95().toMillis());
        t.put("ema_p95_measured", reading.measured());
      }
      retryBudgets.putTarget(t, target);
    }
    Verdict verdict = configured.isEmpty() ? verdict(others, othersLowSuccess) : verdict(states, lowSuccess);
    root.put("status", verdict.status());
    if (unknown > 0) {
      root.put("unknown_targets", unknown); // configured, never called: left out of the verdict
    }
    root.set("targets", targets);
    ObjectNode clientNamedNode = root.putObject("client_named");
    clientNamedNode.put("targets", clientNamed.targets().size());
    clientNamedNode.put("listed", others.size());
    clientNamedNode.put("not_closed", clientNamed.notClosed());
    retryBudgets.putSummary(root);
    StreamStats.Snapshot s = streams.snapshot();
    ObjectNode stream = root.putObject("streams");
    stream.put("started", s.started());
    stream.put("completed", s.completed());
    stream.put("failed", s.failed());
    stream.put("client_gone", s.clientGone());
    stream.put("completion_rate", round(s.completionRate()));
    stream.put("resumes_per_stream", round(s.recoveriesPerStream()));
    stream.put("ttft_p95_ms", s.ttftP95Millis());
    stream.put("duplicate_event_rate", round(s.duplicateRate()));
    root.set("tiers", tiers.status());
    root.set("target_health", tiers.targetStatus()); // issue 10 (tiers): per-target calls and rate-limit cooldowns
    if (cost != null) {
      root.set("cost", cost.lastHour());
    }
    ClusterStatus c = clusterNow;
    ObjectNode clusterNode = root.putObject("cluster");
    clusterNode.put("mode", c.mode().name());
    clusterNode.put("redis", c.redis());
    clusterNode.put("reason", c.reason());
    clusterNode.put("switches", c.switches());
    clusterNode.put("local_answers", c.localAnswers());
    return new Report(root, verdict);
  }

  /**
   * One target's word, from the evidence of the last minute and its circuit breaker. The words
   * move one way as an outage heals ({@code unhealthy}, {@code awaiting_trial}, {@code degraded}
   * while the trial runs, {@code healthy}) and back only on new failures:
   *
   * <ul>
   *   <li>{@code unknown}: never called (a client error is no call of the target), circuit CLOSED
   *       (no call, no verdict).
   *   <li>{@code unhealthy}: circuit OPEN, and its open period still running or a call of the last
   *       minute behind it (fresh evidence).
   *   <li>{@code awaiting_trial}: circuit OPEN, its open period over and no call in the last minute:
   *       nothing fresh says it is down, the next call to it is the trial (newcomer trial: a target
   *       nothing called while another served its alias stayed {@code unhealthy} with 0 calls).
   *   <li>{@code degraded}: circuit HALF_OPEN (its trial under way), or below 95% success over at
   *       least {@value #MIN_CALLS_FOR_RATE} calls.
   *   <li>{@code healthy}: at least 95% success (or no call this minute); or, within a minute of a
   *       trial that closed its circuit, fewer than {@value #MIN_CALLS_FOR_RATE} calls: the
   *       breaker's word (its window starts afresh at the close, {@link TargetStats#recovered}).
   *       Newcomer trial: a healed target read {@code insufficient_data}, then {@code degraded}, on
   *       the outage's failures kept beside the trial's success.
   *   <li>{@code insufficient_data}: below 95% over fewer calls, with no trial to vouch for it (3 of
   *       3 failed is no proof of health, nor yet enough for a verdict; {@code calls} and {@code
   *       failed} say how many).
   * </ul>
   *
   * @param everCalled whether the target was ever called
   * @param recoveredLately whether a trial closed its circuit within the last minute
   */
  static String health(boolean everCalled, boolean recoveredLately, CircuitBreaker.Snapshot circuit,
      SliSnapshot window) {
    CircuitState state = circuit.state();
    if (state == CircuitState.OPEN) {
      return circuit.openRemaining().isZero() && window.total() == 0 ? "awaiting_trial" : "unhealthy";
    }
    if (!everCalled && state == CircuitState.CLOSED) {
      return "unknown";
    }
    if (state == CircuitState.HALF_OPEN) {
      return "degraded";
    }
    if (window.successRate() >= DEGRADED_BELOW) {
      return "healthy";
    }
    if (window.total() >= MIN_CALLS_FOR_RATE) {
      return "degraded";
    }
    return recoveredLately ? "healthy" : "insufficient_data";
  }

  private static Verdict verdict(List<CircuitState> states, boolean lowSuccess) {
    if (!states.isEmpty() && states.stream().allMatch(s -> s == CircuitState.OPEN)) {
      return new Verdict("unhealthy", 503);
    }
    if (lowSuccess || states.stream().anyMatch(s -> s != CircuitState.CLOSED)) {
      return new Verdict("degraded", 200);
    }
    return new Verdict("healthy", 200);
  }

  /**
   * Configured targets first, then at most {@value #MAX_OTHERS} others clients named that something
   * is known of: called (client errors not counted), or a circuit not CLOSED. A name only client
   * errors answered (404 for a model the upstream does not know) is left out: nothing says it is
   * healthy, and a client could list any number of names (newcomer trial).
   */
  /** The configured targets, then at most {@link #MAX_OTHERS} of {@code clientNamed}, in its order. */
  private Set<Target> targets(List<Target> clientNamed) {
    Set<Target> all = new LinkedHashSet<>(configured);
    clientNamed.stream().limit(MAX_OTHERS).forEach(all::add);
    return all;
  }

  /**
   * Every client-named target with evidence (a call, or a circuit not CLOSED), those whose circuit
   * is not CLOSED first ({@code notClosed} of them): an open one is listed however many names
   * clients chose.
   */
  private record ClientNamed(List<Target> targets, int notClosed) {}

  private ClientNamed clientNamed(Map<Target, CircuitBreaker> circuits) {
    List<Target> open = new ArrayList<>();
    List<Target> closed = new ArrayList<>();
    for (Map.Entry<Target, CircuitBreaker> e : circuits.entrySet()) {
      if (configured.contains(e.getKey())) {
        continue;
      }
      if (e.getValue().snapshot().state() != CircuitState.CLOSED) {
        open.add(e.getKey());
      } else if (stats.everCalled(e.getKey())) {
        closed.add(e.getKey());
      }
    }
    int notClosed = open.size();
    open.addAll(closed);
    return new ClientNamed(open, notClosed);
  }

  private static final int MAX_OTHERS = 50;

  private static double round(double value) {
    return Math.round(value * 1000) / 1000.0;
  }
}
