package dev.levee.sim.study;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.sim.RunStats;
import dev.levee.sim.Timeline;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Qualitative properties the overload model implies, checked on the default scenario; no
 * expected numbers are stored.
 */
class OverloadStudyTest {

  private static Map<String, OverloadStudy.Row> byPolicy(List<OverloadStudy.Row> rows) {
    return rows.stream().collect(Collectors.toMap(r -> r.policy().split(" ")[0] + (r.policy().contains("+") ? "+" : ""),
        Function.identity()));
  }

  private final OverloadStudy study = OverloadStudy.defaults();
  private final Map<String, OverloadStudy.Row> rows = byPolicy(study.run());

  @Test
  void immediateRetriesStayOverloadedLongAfterTheTriggerEnds() {
    OverloadStudy.Row immediate = rows.get("immediate");
    Timeline t = immediate.stats().timeline();

    assertThat(immediate.recovered()).isFalse();
    // Well after the trigger (every backoff long over), the upstream still receives more calls
    // than it can serve, and still serves fewer requests than arrive.
    int late = (int) study.horizon() - 10;
    assertThat(t.calls(late)).isGreaterThan((int) study.capacity());
    assertThat(t.successes(late)).isLessThan(t.arrivals(late));
    // ... although the same load alone fits the restored capacity.
    assertThat(study.rate()).isLessThan(study.capacity());
    // The condition under which collapse sustains itself: rejection work of the storm ≥ capacity.
    assertThat(study.rejectCost() * study.maxAttempts() * study.rate()).isGreaterThanOrEqualTo(study.capacity());
  }

  @Test
  void budgetAndThrottlesRecoverWhileRetryStormsDoNot() {
    for (String name : List.of("budget", "gRPC", "breaker", "budget+")) {
      assertThat(rows.get(name).recovered()).as(name).isTrue();
    }
    assertThat(rows.get("full").recovered()).as("jitter spreads retries but does not remove them").isFalse();
    for (String name : List.of("budget", "gRPC")) {
      assertThat(rows.get(name).stats().loss()).as(name).isLessThan(rows.get("immediate").stats().loss());
    }
  }

  @Test
  void aBreakerStaysOpenNoLongerThanItsOpenPeriodAfterTheTrigger() {
    double openFor = study.breaker().openFor().toSeconds();
    assertThat(rows.get("breaker").recoverySeconds()).isLessThanOrEqualTo(openFor);
  }

  @Test
  void budgetRetriesAreBoundedByInitialTokensPlusRatioPerSuccess() {
    OverloadStudy noWarmup = new OverloadStudy(study.seed(), study.rate(), study.horizon(), 0, study.maxAttempts(),
        study.capacity(), study.triggerCapacity(), study.triggerStart(), study.triggerEnd(), study.rejectCost(),
        study.successLatency(), study.failureLatency(), study.immediateDelay(), study.backoffBase(),
        study.backoffCap(), study.budget(), study.breaker(), study.throttleK(), study.throttleWindow(),
        study.grpcMaxTokens(), study.grpcTokenRatio());
    RunStats budget = byPolicy(noWarmup.run()).get("budget").stats();
    double max = study.budget().max();
    double ratio = study.budget().ratio();

    assertThat((double) budget.retries()).isLessThanOrEqualTo(max + ratio * budget.successes());
    assertThat(budget.amplification()).isLessThanOrEqualTo(1 + ratio + max / budget.requests());
  }

  @Test
  void withoutRejectionCostNoPolicyStaysOverloaded() {
    // Served calls are successes and cannot outnumber arrivals for long, so with fewer requests
    // than capacity every storm ends within the retries already scheduled (at most the backoff cap
    // per attempt, plus latencies).
    OverloadStudy free = study.withRejectCost(0);
    double longestRetryChain = (study.maxAttempts() - 1) * (study.backoffCap() + study.failureLatency())
        + study.successLatency();
    for (OverloadStudy.Row row : free.run()) {
      assertThat(row.recovered()).as(row.policy()).isTrue();
      if (row.policy().startsWith("immediate")) {
        // A request that arrives just before the trigger ends fails for at most this long; seconds
        // are judged whole, so one more second may see the last of those losses.
        double chain = study.maxAttempts() * (study.failureLatency() + study.immediateDelay());
        assertThat(row.recoverySeconds()).isLessThanOrEqualTo(Math.ceil(chain) + 1);
      }
      if (!row.policy().startsWith("adaptive")) { // its 2-minute memory sheds load for longer
        assertThat(row.recoverySeconds()).as(row.policy()).isLessThanOrEqualTo(longestRetryChain);
      }
    }
  }

  @Test
  void upstreamNeverServesMoreThanItsCapacity() {
    for (OverloadStudy.Row row : rows.values()) {
      Timeline t = row.stats().timeline();
      for (int s = 0; s < t.seconds(); s++) {
        assertThat(t.calls(s) - t.failures(s)).as("%s second %d", row.policy(), s)
            .isLessThanOrEqualTo((int) study.capacityAt(s));
      }
    }
  }

  @Test
  void runsAreDeterministicForASeed() {
    List<OverloadStudy.Row> again = study.run();
    for (OverloadStudy.Row row : again) {
      OverloadStudy.Row first = rows.values().stream().filter(r -> r.policy().equals(row.policy())).findFirst().orElseThrow();
      assertThat(row.stats().calls()).isEqualTo(first.stats().calls());
      assertThat(row.stats().lost()).isEqualTo(first.stats().lost());
    }
  }
}
