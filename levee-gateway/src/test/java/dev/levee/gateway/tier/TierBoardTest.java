package dev.levee.gateway.tier;

import static dev.levee.gateway.tier.SmartAndSteady.SICK;
import static dev.levee.gateway.tier.SmartAndSteady.SMALL;
import static dev.levee.gateway.tier.SmartAndSteady.SMART;
import static dev.levee.gateway.tier.SmartAndSteady.STEADY;
import static dev.levee.gateway.tier.TestBoards.OVERLOADED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Transition;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Issue 10 on the board alone, in virtual time: health has a scope, the minimum volume is configurable. */
class TierBoardTest {


  private final ManualClock clock = new ManualClock();

  private TierBoard board(String tiers) throws Exception {
    return TestBoards.board(SmartAndSteady.YAML + tiers, clock);
  }

  /** {@code n} client requests of each alias: smart's primary fails every time and its fallback answers. */
  private void traffic(TierBoard board, int n) {
    SmartAndSteady.traffic(board, clock, n);
  }

  @Test
  void anAbsorbedFaultOfOneTargetMovesOnlyTheAliasThatUsesItAndOnlyToT1() throws Exception {
    try (TierBoard board = board("")) {
      traffic(board, 30);
      board.evaluateAll();

      assertThat(board.tier("default", "smart", SMART)).isEqualTo(Tier.T1);
      assertThat(board.tier("default", "steady", STEADY)).isEqualTo(Tier.T0);
      assertThat(board.tier("default")).as("the feature's tier is its worst alias's").isEqualTo(Tier.T1);
      assertThat(board.status().get(0).path("aliases").get(0).path("cause").asText())
          .isEqualTo("alias smart: anthropic/claude-sick: 5xx 100.0% >= 2.0%: one step down (clients answered: floor T1), T0 -> T1");
    }
  }

  @Test
  void aCircuitClosingAfterItsTrialsStartsItsTargetsWindowAfresh() throws Exception {
    try (TierBoard board = board("")) {
      traffic(board, 30);
      board.onTransition(new Transition(SICK.id(), CircuitState.CLOSED, CircuitState.OPEN, "3 failures", clock.nanos()));
      board.onTransition(new Transition(SICK.id(), CircuitState.OPEN, CircuitState.HALF_OPEN, "open for 10s", clock.nanos()));
      assertThat(board.targetCalls(SICK).serverErrors()).as("opening forgets nothing").isEqualTo(30);

      board.onTransition(new Transition(SICK.id(), CircuitState.HALF_OPEN, CircuitState.CLOSED, "2 trial calls succeeded",
          clock.nanos()));
      for (int i = 0; i < 25; i++) {
        board.onSuccess(SICK, Duration.ofMillis(40)); // the backlog drains
      }
      board.evaluateAll();

      assertThat(board.targetCalls(SICK)).extracting(s -> s.successes(), s -> s.serverErrors()).containsExactly(25L, 0L);
      assertThat(board.tier("default", "smart", SMART)).isEqualTo(Tier.T0);
      assertThat(board.targetCalls(SMALL).successes()).as("other targets keep their windows").isEqualTo(30);
    }
  }

  @Test
  void failuresOlderThanTheShortWindowHoldATierButNeverStepItDown() throws Exception {
    try (TierBoard board = board("")) {
      traffic(board, 30); // 3 s of traffic; smart's primary failed every call
      clock.advance(Duration.ofSeconds(10)); // nothing since: the failures are 10.1 s old, the short window 10 s
      board.evaluateAll();

      assertThat(board.tier("default", "smart", SMART)).isEqualTo(Tier.T0);
      assertThat(board.status().get(0).path("aliases").get(0).path("last_reason").asText())
          .contains("but no call failed within the short window (none made, or all answered): no step down on older failures alone");

      board.onFailure(SICK, OVERLOADED, Duration.ofMillis(30)); // one fresh failure: the outage goes on
      board.evaluateAll();
      assertThat(board.tier("default", "smart", SMART)).isEqualTo(Tier.T1);
    }
  }

  @Test
  void theMinimumVolumeBeforeAnyStepDownIsConfigurable() throws Exception {
    try (TierBoard board = board("tiers: { min-volume: 50 }\n")) {
      traffic(board, 30);
      board.evaluateAll();

      assertThat(board.tier("default", "smart", SMART)).isEqualTo(Tier.T0);
      assertThat(board.status().get(0).path("aliases").get(0).path("last_reason").asText()).startsWith("quiet: 30 calls, fewer than the 50 needed to judge");
    }
  }

  @Test
  void aForceAppliesToEveryAliasOfTheFeatureAndEndsOnItsOwn() throws Exception {
    try (TierBoard board = board("")) {
      traffic(board, 1);
      board.controller("default").force(Tier.T2, Duration.ofMinutes(1));

      assertThat(board.tier("default", "steady", STEADY)).isEqualTo(Tier.T2);
      assertThat(board.tier("default", "smart", SMART)).isEqualTo(Tier.T2);
      clock.advance(Duration.ofMinutes(1));
      assertThat(board.tier("default", "steady", STEADY)).isEqualTo(Tier.T0);
      assertThat(board.transitions()).isEqualTo(2);
    }
  }

  @Test
  void aRateLimitWithRetryAfterCoolsItsTargetOnTheBoard() throws Exception {
    try (TierBoard board = board("")) {
      board.onFailure(SICK, new Failure(FailureKind.RATE_LIMITED, 429, "rate_limit_error", "slow down",
          java.util.Optional.of(Duration.ofSeconds(30)), java.util.Optional.empty()), Duration.ZERO);

      assertThat(board.cooldowns().remaining(SICK)).isEqualTo(Duration.ofSeconds(30));
      assertThat(board.targetStatus().path(SICK.id()).path("cooling_ms").asLong()).isEqualTo(30_000);
      assertThat(board.targetStatus().path(SICK.id()).path("rate_limited_share").asDouble()).isEqualTo(1.0);
    }
  }
}
