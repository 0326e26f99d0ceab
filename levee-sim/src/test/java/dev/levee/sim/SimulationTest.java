package dev.levee.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SimulationTest {

  private static final Upstream ALWAYS_FAILS = time -> false;
  private static final Upstream ALWAYS_SUCCEEDS = time -> true;

  private static RunStats run(int requests, Upstream upstream, PolicySpec spec, double latency) {
    ManualClock clock = new ManualClock();
    Mulberry32 random = new Mulberry32(1);
    return Simulation.run(new Simulation.Settings(requests, 10, 5, latency, latency, true), upstream,
        CorePolicy.create(spec, clock, random), clock);
  }

  @Test
  void aHealthyUpstreamSeesOneCallPerRequest() {
    RunStats stats = run(100, ALWAYS_SUCCEEDS, PolicySpec.fixed("immediate", 0.05), 0.2);

    assertThat(stats.calls()).isEqualTo(100);
    assertThat(stats.successes()).isEqualTo(100);
    assertThat(stats.lost()).isZero();
    assertThat(stats.latency().percentile(0.99)).isEqualTo(0.2);
  }

  @Test
  void aDeadUpstreamGetsEveryAllowedAttempt() {
    RunStats stats = run(100, ALWAYS_FAILS, PolicySpec.fixed("immediate", 0.05), 0);

    assertThat(stats.calls()).isEqualTo(500);
    assertThat(stats.retries()).isEqualTo(400);
    assertThat(stats.exhausted()).isEqualTo(100);
    assertThat(stats.loss()).isEqualTo(1.0);
  }

  @Test
  void aBudgetSpendsItsTokensThenDenies() {
    RunStats stats = run(100, ALWAYS_FAILS, PolicySpec.fixed("budget", 0.05).withBudget(10, 0.1), 0);

    assertThat(stats.retries()).as("no successes: only the initial tokens").isEqualTo(10);
    assertThat(stats.exhausted()).as("each exhausted request spent 4 tokens").isLessThanOrEqualTo(10 / 4);
    assertThat(stats.denied() + stats.exhausted()).isEqualTo(100);
  }

  @Test
  void anOpenBreakerRejectsLocallyOnVirtualTime() {
    CircuitBreakerConfig config = CircuitBreakerConfig.of(5, Duration.ofSeconds(30), Duration.ofSeconds(30));
    RunStats stats = run(100, ALWAYS_FAILS, PolicySpec.fixed("breaker", 0.05).withBreaker(config), 0.1);

    // 10 requests/s for 10 s: the breaker opens on the fifth failure (plus the few calls made while
    // those answers were 0.1 s in flight) and stays open for the rest of the run.
    assertThat(stats.calls()).isBetween(5L, 9L);
    assertThat(stats.rejectedLocally()).isGreaterThan(90);
    assertThat(stats.lost()).isEqualTo(100);
  }

  @Test
  void theTimelineAddsUpToTheTotals() {
    RunStats stats = run(200, new CapacityUpstream(5, 5, 0, 0, 0), PolicySpec.fixed("immediate", 0.05), 0.1);
    Timeline timeline = stats.timeline();

    long arrivals = 0, calls = 0, failures = 0, successes = 0, lost = 0;
    for (int s = 0; s < timeline.seconds(); s++) {
      arrivals += timeline.arrivals(s);
      calls += timeline.calls(s);
      failures += timeline.failures(s);
      successes += timeline.successes(s);
      lost += timeline.lost(s);
      assertThat(timeline.calls(s) - timeline.failures(s)).as("served in second %d", s).isLessThanOrEqualTo(5);
    }
    assertThat(arrivals).isEqualTo(stats.requests());
    assertThat(calls).isEqualTo(stats.calls());
    assertThat(failures).isEqualTo(stats.failedCalls());
    assertThat(successes).isEqualTo(stats.successes());
    assertThat(lost).isEqualTo(stats.lost());
    assertThat(successes + lost).isEqualTo(stats.requests());
  }

  @Test
  void requestsWithinCountsArrivalsBeforeTheHorizon() {
    assertThat(Simulation.Settings.requestsWithin(5, 300)).isEqualTo(1500);
    assertThat(Simulation.Settings.requestsWithin(0.1, 30)).isEqualTo(3);
    assertThat(Simulation.Settings.requestsWithin(3, 0.5)).isEqualTo(2);
  }
}
