package dev.levee.gateway.tier;

import static dev.levee.gateway.tier.SmartAndSteady.SMART;
import static dev.levee.gateway.tier.SmartAndSteady.STEADY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 10, "the access log shows each feature's tier with the target or signal that caused it":
 * the board tells the cause of a request's tier — its scope's last transition — for the access line.
 */
class TierCauseTest {

  private final ManualClock clock = new ManualClock();

  private TierBoard board() throws Exception {
    return TestBoards.board(SmartAndSteady.YAML, clock);
  }

  @Test
  void aScopeBelowT0NamesTheTargetAndSignalThatMovedIt() throws Exception {
    try (TierBoard board = board()) {
      SmartAndSteady.traffic(board, clock, 30);
      board.evaluateAll();

      assertThat(board.tier("default", "smart", SMART)).isEqualTo(Tier.T1);
      assertThat(board.cause("default", "smart")).contains("anthropic/claude-sick").contains("5xx 100.0%")
          .endsWith("T0 -> T1");
      assertThat(board.cause("default", "steady")).as("an alias at T0 has no cause").isNull();
      assertThat(board.cause("default", "never-used")).isNull();
    }
  }

  @Test
  void aForcedFeatureNamesItsForce() throws Exception {
    try (TierBoard board = board()) {
      board.tier("default", "steady", STEADY);
      board.controller("default").force(Tier.T2, Duration.ofMinutes(1));

      assertThat(board.cause("default", "steady")).isNotNull().containsIgnoringCase("forc");
    }
  }
}
