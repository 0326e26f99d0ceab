package dev.levee.gateway.tier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 10, "the access log shows each feature's tier with the target or signal that caused it":
 * the board tells the cause of a request's tier — its scope's last transition — for the access line.
 */
class TierCauseTest {

  private static final Target SICK = Target.parse("anthropic/claude-sick");
  private static final Target WELL = Target.parse("anthropic/claude-well");
  private static final Target SMALL = Target.parse("anthropic/claude-small");
  private static final List<Target> SMART = List.of(SICK, SMALL);
  private static final List<Target> STEADY = List.of(WELL, SMALL);

  private final ManualClock clock = new ManualClock();

  private TierBoard board() throws Exception {
    String yaml = """
        upstreams:
          anthropic: { url: "https://api.anthropic.com" }
        models:
          smart: { chain: [anthropic/claude-sick, anthropic/claude-small] }
          steady: { chain: [anthropic/claude-well, anthropic/claude-small] }
        """;
    return TestBoards.board(yaml, clock);
  }

  @Test
  void aScopeBelowT0NamesTheTargetAndSignalThatMovedIt() throws Exception {
    try (TierBoard board = board()) {
      for (int i = 0; i < 30; i++) {
        board.tier("default", "smart", SMART);
        board.tier("default", "steady", STEADY);
        board.onFailure(SICK, Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "busy"), Duration.ofMillis(30));
        board.onSuccess(SMALL, Duration.ofMillis(40));
        board.answered("default", "smart", Duration.ofMillis(70));
        board.onSuccess(WELL, Duration.ofMillis(40));
        board.answered("default", "steady", Duration.ofMillis(40));
        clock.advance(Duration.ofMillis(100));
      }
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
