package dev.levee.sim.study;

import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.retry.Backoff;
import dev.levee.core.throttle.AdaptiveThrottle;
import dev.levee.core.throttle.RetryThrottle;
import dev.levee.core.time.ManualClock;
import dev.levee.sim.CapacityUpstream;
import dev.levee.sim.CorePolicy;
import dev.levee.sim.Mulberry32;
import dev.levee.sim.PolicySpec;
import dev.levee.sim.RunStats;
import dev.levee.sim.Simulation;
import dev.levee.sim.Timeline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Load that feeds back: the same client policies against a {@link CapacityUpstream}, whose
 * capacity drops for a while (the trigger). Shows whether an overload outlives its trigger
 * (a metastable failure) under each policy, all built from levee-core's own classes.
 *
 * <p>Policies, in table order: immediate retry; backoff with full jitter; full jitter behind a
 * retry budget; behind a circuit breaker; behind both; behind client-side adaptive throttling
 * (SRE book, K and a 2-minute window); with gRPC retry throttling (gRFC A6). Each run has a fresh
 * mulberry32 generator seeded with {@code seed}; arrivals are evenly spaced.
 *
 * <p>Requests arriving during the warm-up run like any other but are left out of the totals, so
 * that a policy's cold start (the adaptive throttle counts in-flight requests before their
 * accepts, and throttles itself at first) does not blur how it handles the trigger.
 *
 * <p>Per policy: loss, amplification (calls per request), time to recover after the trigger
 * ends and p99 latency of successful requests. A run has recovered from the first whole second
 * at or after the trigger's end from which, until the last arrival, no call failed and no request
 * was lost; "never" when there is no such second.
 *
 * @param seed mulberry32 seed (default 20260921)
 * @param rate requests per second (default 80)
 * @param horizon seconds during which requests arrive (default 420)
 * @param warmup seconds of arrivals that run but are not counted in the totals (default 120: the
 *     adaptive throttle's window, so every policy enters the trigger with a full, healthy history)
 * @param maxAttempts attempts per request, the first included (default 5)
 * @param capacity upstream calls served per second in normal times (default 100)
 * @param triggerCapacity calls served per second during the trigger (default 50)
 * @param triggerStart start of the capacity drop, seconds (default 150)
 * @param triggerEnd end of the capacity drop, seconds (default 180)
 * @param rejectCost capacity a 529 costs the upstream, as a fraction of a served call (default 0.3)
 * @param successLatency seconds a successful call takes (default 1)
 * @param failureLatency seconds until a 529 comes back (default 0.1)
 * @param immediateDelay the immediate policy's wait, seconds (default 0.05)
 * @param backoffBase first jittered wait's ceiling, seconds (default 1)
 * @param backoffCap cap on any jittered wait, seconds (default 30)
 * @param budget the retry budget of the budget policies (default 100/0.1)
 * @param breaker the breaker of the breaker policies (default profile: 5 failures in 30 s, open 30 s)
 * @param throttleK adaptive-throttling multiplier (SRE book: 2)
 * @param throttleWindow adaptive-throttling history, seconds (SRE book: 120)
 * @param grpcMaxTokens gRFC A6 max tokens (default 10)
 * @param grpcTokenRatio gRFC A6 token ratio (default 0.1)
 */
public record OverloadStudy(
    int seed,
    double rate,
    double horizon,
    double warmup,
    int maxAttempts,
    double capacity,
    double triggerCapacity,
    double triggerStart,
    double triggerEnd,
    double rejectCost,
    double successLatency,
    double failureLatency,
    double immediateDelay,
    double backoffBase,
    double backoffCap,
    BudgetSetting budget,
    CircuitBreakerConfig breaker,
    double throttleK,
    double throttleWindow,
    double grpcMaxTokens,
    double grpcTokenRatio) {

  /**
   * One policy's result.
   *
   * @param policy the row label
   * @param guardName what the policy's guard line in the chart means ("" when none)
   * @param stats the run's totals and timeline
   * @param recoverySeconds seconds from the trigger's end to recovery, or NaN for never
   */
  public record Row(String policy, String guardName, RunStats stats, double recoverySeconds) {
    public boolean recovered() {
      return !Double.isNaN(recoverySeconds);
    }
  }

  public OverloadStudy {
    Objects.requireNonNull(budget, "budget");
    Objects.requireNonNull(breaker, "breaker");
    new CapacityUpstream(capacity, triggerCapacity, triggerStart, triggerEnd, rejectCost); // checks the upstream's settings
    if (Simulation.Settings.requestsWithin(rate, horizon) <= Simulation.Settings.requestsWithin(rate, warmup)) {
      throw new IllegalArgumentException("nothing would be counted: the horizon (" + horizon + " s) must extend past the warm-up ("
          + warmup + " s)");
    }
    if (maxAttempts < 1) throw new IllegalArgumentException("max attempts must be at least 1, was " + maxAttempts);
    if (!(successLatency >= 0 && failureLatency >= 0 && Double.isFinite(successLatency) && Double.isFinite(failureLatency))) {
      throw new IllegalArgumentException("latencies must be finite and not negative, were " + successLatency + " and " + failureLatency);
    }
    // the throttles check their own settings
    new AdaptiveThrottle(throttleK, RetryBudgetStudy.seconds(throttleWindow), new ManualClock(), new Mulberry32(seed));
    new RetryThrottle(grpcMaxTokens, grpcTokenRatio);
    if (!(warmup >= 0 && warmup <= triggerStart)) throw new IllegalArgumentException("the warm-up must end before the trigger");
  }

  /** The default scenario: 80 requests/s, capacity 100/s dropping to 50/s from 150 s to 180 s. */
  public static OverloadStudy defaults() {
    return new OverloadStudy(20260921, 80, 420, 120, 5, 100, 50, 150, 180, 0.3, 1.0, 0.1, 0.05, 1, 30,
        new BudgetSetting(100, 0.1), CircuitBreakerConfig.DEFAULT, 2, 120, 10, 0.1);
  }

  /** This scenario with another rejection cost (0 removes the feedback that makes overload last). */
  public OverloadStudy withRejectCost(double cost) {
    return new OverloadStudy(seed, rate, horizon, warmup, maxAttempts, capacity, triggerCapacity, triggerStart, triggerEnd,
        cost, successLatency, failureLatency, immediateDelay, backoffBase, backoffCap, budget, breaker,
        throttleK, throttleWindow, grpcMaxTokens, grpcTokenRatio);
  }

  /** This scenario with arrivals for {@code seconds} seconds instead (the rate is kept). */
  public OverloadStudy withHorizon(double seconds) {
    return new OverloadStudy(seed, rate, seconds, warmup, maxAttempts, capacity, triggerCapacity, triggerStart, triggerEnd,
        rejectCost, successLatency, failureLatency, immediateDelay, backoffBase, backoffCap, budget, breaker,
        throttleK, throttleWindow, grpcMaxTokens, grpcTokenRatio);
  }

  /** Requests simulated, the warm-up included. */
  public int requests() {
    return Simulation.Settings.requestsWithin(rate, horizon);
  }

  /** Index of the first request counted in the totals (the first after the warm-up). */
  public int firstCounted() {
    return Math.min(requests(), Simulation.Settings.requestsWithin(rate, warmup));
  }

  /** The policies compared, in table order. */
  public List<PolicySpec> policies() {
    Backoff backoff = new Backoff(RetryBudgetStudy.seconds(backoffBase), RetryBudgetStudy.seconds(backoffCap));
    Duration window = RetryBudgetStudy.seconds(throttleWindow);
    String b = budget.label().replace(" / ratio ", "/");
    return List.of(
        PolicySpec.fixed("immediate retry", immediateDelay),
        PolicySpec.jitter("full jitter", backoff),
        PolicySpec.jitter("budget " + b, backoff).withBudget(budget.max(), budget.ratio()),
        PolicySpec.jitter("breaker", backoff).withBreaker(breaker),
        PolicySpec.jitter("budget " + b + " + breaker", backoff).withBudget(budget.max(), budget.ratio()).withBreaker(breaker),
        PolicySpec.jitter("adaptive throttle K=" + BudgetSetting.number(throttleK), backoff).withAdaptiveThrottle(throttleK, window),
        PolicySpec.jitter("gRPC retry throttle " + BudgetSetting.number(grpcMaxTokens) + "/" + BudgetSetting.number(grpcTokenRatio), backoff)
            .withRetryThrottle(grpcMaxTokens, grpcTokenRatio));
  }

  /** Runs every policy. */
  public List<Row> run() {
    List<Row> rows = new ArrayList<>();
    for (PolicySpec spec : policies()) {
      rows.add(run(spec));
    }
    return rows;
  }

  /** Runs one policy against this scenario. */
  public Row run(PolicySpec spec) {
    Simulation.Settings settings =
        new Simulation.Settings(requests(), rate, maxAttempts, successLatency, failureLatency, true, firstCounted());
    Mulberry32 random = new Mulberry32(seed);
    ManualClock clock = new ManualClock();
    CorePolicy policy = CorePolicy.create(spec, clock, random);
    RunStats stats = Simulation.run(settings, upstream(), policy, spec.needsClock() ? clock : null);
    return new Row(spec.name(), policy.guardName(), stats, recoverySeconds(stats.timeline()));
  }

  /** Seconds from the trigger's end until every later second (to the last arrival) is clean; NaN if never. */
  double recoverySeconds(Timeline timeline) {
    int lastArrivalSecond = (int) Math.floor((requests() - 1) / rate);
    int from = (int) Math.ceil(triggerEnd);
    int recoveredAt = -1;
    for (int s = Math.min(lastArrivalSecond, timeline.seconds() - 1); s >= from; s--) {
      if (timeline.failures(s) > 0 || timeline.lost(s) > 0) {
        break;
      }
      recoveredAt = s;
    }
    return recoveredAt < 0 ? Double.NaN : recoveredAt - triggerEnd;
  }

  /** The nominal upstream capacity at {@code second} (for charts). */
  public double capacityAt(double second) {
    return upstream().capacityAt(second);
  }

  private CapacityUpstream upstream() {
    return new CapacityUpstream(capacity, triggerCapacity, triggerStart, triggerEnd, rejectCost);
  }
}
