package dev.levee.bench;

import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.time.ManualClock;
import dev.levee.sim.CapacityUpstream;
import dev.levee.sim.CorePolicy;
import dev.levee.sim.FailureSchedule;
import dev.levee.sim.Mulberry32;
import dev.levee.sim.PolicySpec;
import dev.levee.sim.RunStats;
import dev.levee.sim.Simulation;
import dev.levee.sim.study.OverloadStudy;
import dev.levee.sim.study.RetryBudgetStudy;
import java.util.List;

/**
 * The scenarios the speed target is measured on: one simulation run of 1,000,000 requests each.
 *
 * <ul>
 *   <li>{@code study-budget}: the published retry-budget study scaled to 1,000,000 requests in the
 *       same 300 s (3,333.3 requests/s), full jitter behind a 200/0.1 budget;
 *   <li>{@code study-immediate}: the same with immediate retries;
 *   <li>{@code overload-immediate}: the overload study scaled to 1,000,000 requests over its 420 s
 *       (capacity scaled alike) under immediate retries — the metastable storm, about 4.6 calls
 *       per request, the most events per request of any policy;
 *   <li>{@code overload-breaker-budget}: the same with a budget and a breaker (time-reading policies).
 * </ul>
 */
public enum MillionRequests {
  STUDY_BUDGET("study-budget"),
  STUDY_IMMEDIATE("study-immediate"),
  OVERLOAD_IMMEDIATE("overload-immediate"),
  OVERLOAD_BREAKER_BUDGET("overload-breaker-budget");

  /** Requests per run. */
  public static final int REQUESTS = 1_000_000;

  private final String label;

  MillionRequests(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  /** Runs the scenario once and returns its totals. */
  public RunStats run() {
    return switch (this) {
      case STUDY_BUDGET -> study(1);
      case STUDY_IMMEDIATE -> study(0);
      case OVERLOAD_IMMEDIATE -> overload(PolicySpec.fixed("immediate retry", 0.05));
      case OVERLOAD_BREAKER_BUDGET -> overload(
          overloadScenario().policies().get(1).withBudget(100 * scale(), 0.1).withBreaker(CircuitBreakerConfig.DEFAULT));
    };
  }

  private static RunStats study(int policyIndex) {
    RetryBudgetStudy published = RetryBudgetStudy.published();
    double rate = REQUESTS / published.horizon();
    RetryBudgetStudy scaled = new RetryBudgetStudy(published.seed(), rate, published.horizon(),
        published.maxAttempts(), published.outageEnd(), published.degradedEnd(), published.degradedFailRate(),
        published.immediateDelay(), published.backoffBase(), published.backoffCap(), published.budgets());
    List<PolicySpec> policies = scaled.policies();
    PolicySpec spec = policyIndex == 0 ? policies.get(0) : policies.get(2);
    Mulberry32 random = new Mulberry32(published.seed());
    FailureSchedule upstream = new FailureSchedule(published.outageEnd(), published.degradedEnd(),
        published.degradedFailRate(), random);
    Simulation.Settings settings =
        new Simulation.Settings(REQUESTS, rate, published.maxAttempts(), 0, 0, false);
    return Simulation.run(settings, upstream, CorePolicy.create(spec, null, random), null);
  }

  private static double scale() {
    OverloadStudy defaults = OverloadStudy.defaults();
    return REQUESTS / (defaults.rate() * defaults.horizon());
  }

  private static OverloadStudy overloadScenario() {
    return OverloadStudy.defaults();
  }

  private static RunStats overload(PolicySpec spec) {
    OverloadStudy d = overloadScenario();
    double k = scale();
    Mulberry32 random = new Mulberry32(d.seed());
    ManualClock clock = new ManualClock();
    CapacityUpstream upstream = new CapacityUpstream(d.capacity() * k, d.triggerCapacity() * k, d.triggerStart(),
        d.triggerEnd(), d.rejectCost());
    Simulation.Settings settings = new Simulation.Settings(REQUESTS, d.rate() * k, d.maxAttempts(),
        d.successLatency(), d.failureLatency(), true);
    return Simulation.run(settings, upstream, CorePolicy.create(spec, clock, random), spec.needsClock() ? clock : null);
  }
}
