package dev.levee.gateway.tier;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (tenants sharing one process for weeks): scopes of model names no alias names were
 * never dropped, so after the first {@value TierBoard#MAX_CLIENT_SCOPES} invented names of a
 * process's life every new name shared the feature's {@code *} scope forever, and one tenant's
 * failing junk names then degraded every other unaliased model of the feature; and the feature's
 * tier counted the invented names' scopes, so junk names made the whole feature look degraded.
 * The board alone, in virtual time (evaluations run when the test says).
 */
class IdleClientScopesFreeTheirSlotsRegressionTest {

  private static final List<Target> OK2 = List.of(Target.parse("emu/claude-3-haiku"));

  private final ManualClock clock = new ManualClock();

  private TierBoard board() throws Exception {
    return TestBoards.board(TestBoards.OK2_CONFIG, clock);
  }

  /** {@code times} requests of one client to {@code model}, each answered or failed with a 529. */
  private void call(TierBoard board, String model, int times, boolean fail) {
    for (int i = 0; i < times; i++) {
      TestBoards.request(board, model, fail);
      clock.advance(Duration.ofMillis(1));
    }
  }

  /** Evaluations once a minute for {@code duration}: degraded scopes with no traffic step back up. */
  private void idle(TierBoard board, Duration duration) {
    for (long m = 0; m < duration.toMinutes(); m++) {
      clock.advance(Duration.ofMinutes(1));
      board.evaluateAll();
    }
  }

  private static int belowT0(TierBoard board) {
    return board.status().get(0).path("other_models").path("below_t0").asInt();
  }

  @Test
  void aNameUsedAfterTheJunkWentIdleGetsItsOwnScopeAndDegradesNoOtherName() throws Exception {
    try (TierBoard board = board()) {
      for (int i = 0; i < 100; i++) {
        call(board, "claude-z" + i, 25, true); // a tenant's junk: 100 names, each failing
      }
      board.evaluateAll();
      assertThat(belowT0(board)).as("the junk names did step down").isPositive();
      idle(board, Duration.ofMinutes(64)); // longer than a client scope's idle time (62 min)

      call(board, "claude-b", 25, true); // tenant b's new name fails
      call(board, "claude-c", 25, false); // tenant c's new name is healthy
      board.evaluateAll();

      assertThat(board.tier("default", "claude-b", List.of(new Target("emu", "claude-b"))))
          .as("tenant b's failing name steps its own scope down").isNotEqualTo(Tier.T0);
      assertThat(board.tier("default", "claude-c", List.of(new Target("emu", "claude-c"))))
          .as("tenant c's healthy name has a scope of its own, not the one b's failures degraded").isEqualTo(Tier.T0);
      assertThat(board.degraded()).extracting(TierBoard.Degraded::alias).containsExactly("claude-b");
    }
  }

  @Test
  void tenThousandInventedNamesOverThreeWeeksStayWithinTheBound() throws Exception {
    try (TierBoard board = board()) {
      for (int day = 0; day < 20; day++) {
        for (int i = 0; i < 500; i++) {
          call(board, "claude-d" + day + "-" + i, 1, i % 2 == 0); // 10,000 distinct names in all
        }
        JsonNode others = board.status().get(0).path("other_models");
        assertThat(others.path("scopes").asInt()).as("day %d", day).isLessThanOrEqualTo(TierBoard.MAX_CLIENT_SCOPES + 1);
        idle(board, Duration.ofMinutes(10));
        clock.advance(Duration.ofDays(1));
      }

      call(board, "claude-late", 25, true);
      board.evaluateAll();
      assertThat(board.degraded()).extracting(TierBoard.Degraded::alias)
          .as("weeks later a new name still gets a scope of its own").containsExactly("claude-late");
    }
  }

  @Test
  void theFeaturesTierIsItsConfiguredAliasesInventedNamesAreReportedApart() throws Exception {
    try (TierBoard board = board()) {
      call(board, "claude-z0", 25, true);
      call(board, "ok2", 25, false);
      board.evaluateAll();

      assertThat(board.tier("default", "claude-z0", List.of(new Target("emu", "claude-z0")))).isNotEqualTo(Tier.T0);
      assertThat(board.tier("default", "ok2", OK2)).isEqualTo(Tier.T0);
      assertThat(board.tier("default")).as("an invented name does not make the feature look degraded")
          .isEqualTo(Tier.T0);
      JsonNode feature = board.status().get(0);
      assertThat(feature.path("tier").asText()).as("/health agrees").isEqualTo("T0");
      assertThat(feature.path("automatic").asText()).isEqualTo("T0");
      assertThat(feature.path("other_models").path("tier").asText()).as("the invented names, apart").isIn("T1", "T2");
      assertThat(feature.path("other_models").path("below_t0").asInt()).isEqualTo(1);
    }
  }
}
