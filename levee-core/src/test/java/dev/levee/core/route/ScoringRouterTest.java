package dev.levee.core.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Who is a candidate, in which order, and how the ranking follows the measurements. */
class ScoringRouterTest {

  private static final Target OPUS = new Target("anthropic", "claude-opus-4-6");
  private static final Target SONNET = new Target("anthropic", "claude-sonnet-4-6");
  private static final Target HAIKU = new Target("anthropic", "claude-haiku-4-5");
  private static final RouteRequest CODE =
      new RouteRequest(TaskType.CODE, 2000, Duration.ofMillis(5000), Preference.BALANCED);

  private final ManualClock clock = new ManualClock();
  private final RouterStatistics statistics = new RouterStatistics(StatisticsConfig.DEFAULT, clock);

  private ScoringRouter router(Circuits circuits, Cooling cooling, Pacing pacing) {
    return new ScoringRouter(statistics, PriceTable.defaults(), TaskFitMatrix.defaults(), circuits, cooling, pacing);
  }

  @Test
  void openCoolingAndPacedTargetsAreNotCandidatesButStayAtTheEndInChainOrder() {
    ScoringRouter router = router(t -> t.equals(OPUS) ? CircuitState.OPEN : CircuitState.CLOSED,
        t -> t.equals(HAIKU), (t, tokens) -> !t.equals(SONNET));

    RouteDecision decision = router.route(List.of(SONNET, OPUS, HAIKU), CODE);

    assertThat(decision.ranked()).isEmpty();
    assertThat(decision.chosen()).isEmpty();
    assertThat(decision.excluded()).containsExactly(
        new Exclusion(SONNET, Exclusion.Reason.RATE_LIMITED),
        new Exclusion(OPUS, Exclusion.Reason.CIRCUIT_OPEN),
        new Exclusion(HAIKU, Exclusion.Reason.COOLING_DOWN));
    assertThat(decision.order()).containsExactly(SONNET, OPUS, HAIKU);
  }

  @Test
  void aHalfOpenCircuitIsACandidate() {
    ScoringRouter router = router(t -> t.equals(SONNET) ? CircuitState.HALF_OPEN : CircuitState.OPEN,
        Cooling.NONE, Pacing.NONE);

    RouteDecision decision = router.route(List.of(OPUS, SONNET), CODE);

    assertThat(decision.chosen()).contains(SONNET);
    assertThat(decision.order()).containsExactly(SONNET, OPUS);
  }

  @Test
  void anOpenCircuitWhoseOpenPeriodPassedIsACandidateAgain() {
    CircuitBreakerConfig config = CircuitBreakerConfig.of(2, Duration.ofSeconds(60), Duration.ofSeconds(30));
    Breakers breakers = new Breakers(config, clock, t -> { });
    for (int i = 0; i < config.failures(); i++) {
      ((CircuitBreaker.Admitted) breakers.of(SONNET).tryAcquire()).permit().failure();
    }
    ScoringRouter router = router(Circuits.of(breakers), Cooling.NONE, Pacing.NONE);
    assertThat(router.route(List.of(SONNET), CODE).excluded()).extracting(Exclusion::reason)
        .containsExactly(Exclusion.Reason.CIRCUIT_OPEN);

    clock.advance(config.openFor());

    assertThat(router.route(List.of(SONNET), CODE).chosen()).contains(SONNET);
  }

  @Test
  void equalScoresKeepChainOrder() {
    Target first = new Target("a", "model-x");
    Target second = new Target("b", "model-x");
    ScoringRouter router = router(Circuits.CLOSED, Cooling.NONE, Pacing.NONE);

    assertThat(router.route(List.of(first, second), CODE).order()).containsExactly(first, second);
    assertThat(router.route(List.of(second, first), CODE).order()).containsExactly(second, first);
    assertThat(router.route(List.of(first, second), CODE).explain()).isEqualTo("a/model-x=67.5;b/model-x=67.5");
  }

  @Test
  void aTargetListedTwiceIsScoredOnce() {
    ScoringRouter router = router(Circuits.CLOSED, Cooling.NONE, Pacing.NONE);

    assertThat(router.route(List.of(SONNET, OPUS, SONNET), CODE).order()).containsExactly(SONNET, OPUS);
  }

  @Test
  void whenTheChosenModelStartsFailingTrafficMovesAndComesBackAfterItRecovers() {
    ScoringRouter router = router(Circuits.CLOSED, Cooling.NONE, Pacing.NONE);
    Failure overloaded = Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "Overloaded");
    assertThat(router.route(List.of(OPUS, SONNET), CODE).chosen()).contains(SONNET);

    int failuresUntilMoved = 0;
    while (router.route(List.of(OPUS, SONNET), CODE).chosen().orElseThrow().equals(SONNET)) {
      statistics.onFailure(SONNET, overloaded, Duration.ofMillis(50));
      failuresUntilMoved++;
    }

    // Both unmeasured at the default typical 2 s: Sonnet 30 + 15 + 9.375 + 30 = 84.375, Opus at
    // its $5 / MTok list price 30 + 15 + 7.5 + 27 = 79.5. Each failure keeps 0.9 of Sonnet's
    // success: after k failures it scores 30 × 0.9^k + 54.375, below 79.5 once 0.9^k < 0.8375.
    assertThat(failuresUntilMoved).isEqualTo(2);
    clock.advance(Duration.ofHours(1)); // six half-lives: the failures are mostly forgotten
    assertThat(router.route(List.of(OPUS, SONNET), CODE).chosen()).contains(SONNET);
  }

  @Test
  void onceLatenciesAreMeasuredTheFastModelWinsATightBudget() {
    Target slow = new Target("emu", "emu-slow-ttft-2000");
    Target fast = new Target("emu", "emu-ok");
    ScoringRouter router = router(Circuits.CLOSED, Cooling.NONE, Pacing.NONE);
    RouteRequest tight = new RouteRequest(TaskType.SIMPLE, 100, Duration.ofMillis(1000), Preference.BALANCED);
    // unmeasured, both read the default typical 2 s: a tie, chain order
    assertThat(router.route(List.of(slow, fast), tight).chosen()).contains(slow);

    for (int i = 0; i < 5; i++) {
      statistics.onSuccess(slow, Duration.ofMillis(2000));
      statistics.onSuccess(fast, Duration.ofMillis(40));
    }

    RouteDecision decision = router.route(List.of(slow, fast), tight);
    assertThat(decision.chosen()).contains(fast);
    assertThat(decision.ranked().get(0).latency()).isGreaterThan(23);
    assertThat(decision.ranked().get(1).latency()).isZero();
  }

  @Test
  void pacingFromRateLimitsLeavesOutATargetThatWouldAnswer429() {
    RateLimits limits = new RateLimits(clock);
    limits.observe(SONNET, new RateLimitReading(
        Optional.of(new RateLimitReading.Bucket(0, Duration.ofSeconds(20))),
        Optional.empty(), Optional.empty(), Optional.empty()));
    ScoringRouter router = router(Circuits.CLOSED, Cooling.NONE, limits);

    assertThat(router.route(List.of(SONNET, OPUS), CODE).chosen()).contains(OPUS);

    clock.advance(Duration.ofSeconds(20));
    assertThat(router.route(List.of(SONNET, OPUS), CODE).chosen()).contains(SONNET);
  }

  @Test
  void aConfiguredMatrixAndPriceTableChangeTheRanking() {
    ScoringRouter router = new ScoringRouter(statistics,
        PriceTable.defaults().with(Map.of(OPUS.model(), ModelPrice.perMillion(0, 0))),
        TaskFitMatrix.of(Map.of("opus", Map.of(TaskType.CODE, 1.0))), Circuits.CLOSED, Cooling.NONE, Pacing.NONE);

    assertThat(router.route(List.of(SONNET, OPUS), CODE).chosen()).contains(OPUS);
  }
}
