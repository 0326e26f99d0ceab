package dev.levee.sim.study;

import dev.levee.core.retry.Backoff;
import dev.levee.sim.CorePolicy;
import dev.levee.sim.FailureSchedule;
import dev.levee.sim.Mulberry32;
import dev.levee.sim.PolicySpec;
import dev.levee.sim.RunStats;
import dev.levee.sim.Simulation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The published retry-budget study, rerun with levee-core's own {@code RetryBudget} and {@code
 * Backoff}: an outage, then a degraded period, then health; the upstream's failures do not
 * depend on load.
 *
 * <p>Policies: immediate retry (a constant short wait), backoff with full jitter, and full jitter
 * behind each retry budget in {@code budgets}. Each run uses a fresh mulberry32 generator seeded
 * with {@code seed}, drawn once per call (success check) and once per jittered wait, in that
 * order. Jittered waits are {@code U(0,1) · min(backoffCap, backoffBase · 2^n)} seconds from
 * levee-core's {@link Backoff} (n = attempts already made before the failed one). Answers arrive
 * with no latency.
 *
 * @param seed the mulberry32 seed (published: 20260921)
 * @param rate arrivals per second (published: 5)
 * @param horizon seconds during which requests arrive (published: 300)
 * @param maxAttempts attempts per request, the first included (published: 5)
 * @param outageEnd seconds until which every call fails (published: 20)
 * @param degradedEnd seconds until which calls fail with {@code degradedFailRate} (published: 120)
 * @param degradedFailRate failure probability while degraded (published: 0.4)
 * @param immediateDelay the immediate policy's wait, in seconds (published: 0.05)
 * @param backoffBase the first jittered wait's ceiling, in seconds (published: 1)
 * @param backoffCap the cap on any jittered wait, in seconds (published: 30)
 * @param budgets the retry budgets compared (published: 200/0.1, 400/0.2, 500/0.25, 600/0.3)
 */
public record RetryBudgetStudy(
    int seed,
    double rate,
    double horizon,
    int maxAttempts,
    double outageEnd,
    double degradedEnd,
    double degradedFailRate,
    double immediateDelay,
    double backoffBase,
    double backoffCap,
    List<BudgetSetting> budgets) {

  /** One row of the table. */
  public record Row(String policy, RunStats stats) {}

  public RetryBudgetStudy {
    budgets = List.copyOf(Objects.requireNonNull(budgets, "budgets"));
    Simulation.Settings.requestsWithin(rate, horizon); // checks rate and horizon
    if (maxAttempts < 1) throw new IllegalArgumentException("max attempts must be at least 1, was " + maxAttempts);
    if (!(outageEnd >= 0 && degradedEnd >= outageEnd)) {
      throw new IllegalArgumentException("the outage (until " + outageEnd + " s) must end before the degraded phase does ("
          + degradedEnd + " s)");
    }
    if (!(degradedFailRate >= 0 && degradedFailRate <= 1)) {
      throw new IllegalArgumentException("the degraded fail rate must be in [0, 1], was " + degradedFailRate);
    }
    if (!(immediateDelay >= 0)) throw new IllegalArgumentException("immediate delay must not be negative");
    if (!(backoffBase >= 0 && backoffCap >= 0)) throw new IllegalArgumentException("backoff must not be negative");
  }

  /** The study's published parameters. */
  public static RetryBudgetStudy published() {
    return new RetryBudgetStudy(20260921, 5, 300, 5, 20, 120, 0.4, 0.05, 1, 30,
        BudgetSetting.parseList("200/0.1,400/0.2,500/0.25,600/0.3"));
  }

  /** Requests simulated: arrivals {@code i / rate} before {@code horizon}. */
  public int requests() {
    return Simulation.Settings.requestsWithin(rate, horizon);
  }

  /** The policies compared, in table order. */
  public List<PolicySpec> policies() {
    Backoff backoff = new Backoff(seconds(backoffBase), seconds(backoffCap));
    List<PolicySpec> out = new ArrayList<>();
    out.add(PolicySpec.fixed("immediate retry", immediateDelay));
    out.add(PolicySpec.jitter("backoff + full jitter", backoff));
    for (BudgetSetting b : budgets) {
      out.add(PolicySpec.jitter("budget " + b.label(), backoff).withBudget(b.max(), b.ratio()));
    }
    return out;
  }

  /** Runs every policy and returns the table's rows. */
  public List<Row> run() {
    Simulation.Settings settings = new Simulation.Settings(requests(), rate, maxAttempts, 0, 0, false);
    List<Row> rows = new ArrayList<>();
    for (PolicySpec spec : policies()) {
      Mulberry32 random = new Mulberry32(seed);
      FailureSchedule upstream = new FailureSchedule(outageEnd, degradedEnd, degradedFailRate, random);
      RunStats stats = Simulation.run(settings, upstream, CorePolicy.create(spec, null, random), null);
      rows.add(new Row(spec.name(), stats));
    }
    return rows;
  }

  static Duration seconds(double s) {
    return Duration.ofNanos(Math.round(s * 1e9));
  }
}
