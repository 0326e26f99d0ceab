package dev.levee.gateway.tier;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.core.chain.Target;
import dev.levee.core.sli.SliOutcome;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** When a scope of a client-chosen name, or a client-named target's call window, is dropped — and when never. */
class ClientScopeEvictionTest {

  private final ManualClock clock = new ManualClock();

  private TierBoard board() throws Exception {
    return TestBoards.board(TestBoards.OK2_CONFIG, clock);
  }

  private void call(TierBoard board, String model, int times, boolean fail) {
    for (int i = 0; i < times; i++) {
      TestBoards.request(board, model, fail);
    }
  }

  /** Fills every client-scope slot with names {@code prefix0} … used once each. */
  private void fill(TierBoard board, String prefix) {
    for (int i = 0; i < TierBoard.MAX_CLIENT_SCOPES; i++) {
      call(board, prefix + i, 1, false);
    }
  }

  private static List<String> aliases(TierBoard board) {
    List<String> out = new ArrayList<>();
    board.status().get(0).path("aliases").forEach(a -> out.add(a.path("alias").asText()));
    return out;
  }

  private static int clientScopes(TierBoard board) {
    return board.status().get(0).path("other_models").path("scopes").asInt();
  }

  @Test
  void otherModelsTierIsTheWorstOfTheClientNamesAndFollowsAForce() throws Exception {
    try (TierBoard board = board()) {
      assertThat(board.otherModelsTier("default")).as("no client names yet").isEqualTo(Tier.T0);
      call(board, "claude-sick", 25, true);
      board.evaluateAll();
      Tier sick = board.currentTier("default", "claude-sick");
      assertThat(sick).isNotEqualTo(Tier.T0);
      assertThat(board.otherModelsTier("default")).isEqualTo(sick);
      assertThat(board.tier("default")).isEqualTo(Tier.T0);

      board.force("default", Tier.T3, Duration.ofMinutes(1));

      assertThat(board.tier("default")).isEqualTo(Tier.T3);
      assertThat(board.otherModelsTier("default")).isEqualTo(Tier.T3);
    }
  }

  @Test
  void theIdleTimeIsTheLongBurnWindowItsBucketAndTheSliWindow() throws Exception {
    try (TierBoard board = board()) {
      assertThat(board.clientScopeIdle()).isEqualTo(Duration.ofMinutes(62));
    }
  }

  @Test
  void aScopeIsKeptUntilItHasBeenIdleForTheWholeIdleTime() throws Exception {
    try (TierBoard board = board()) {
      fill(board, "claude-a");
      clock.advance(board.clientScopeIdle().minusMillis(1));
      call(board, "claude-new", 1, false);
      assertThat(board.scopeEvictions()).as("not yet idle long enough").isZero();
      assertThat(clientScopes(board)).as("the bound's own scopes and the shared one").isEqualTo(
          TierBoard.MAX_CLIENT_SCOPES + 1);

      clock.advance(Duration.ofMillis(1));
      call(board, "claude-new2", 1, false);

      assertThat(board.scopeEvictions()).isEqualTo(TierBoard.MAX_CLIENT_SCOPES);
      assertThat(clientScopes(board)).as("claude-new2's own and the shared one").isEqualTo(2);
    }
  }

  @Test
  void aScopeInUseIsNeverDropped() throws Exception {
    try (TierBoard board = board()) {
      fill(board, "claude-a");
      for (int hour = 0; hour < 3; hour++) {
        clock.advance(Duration.ofMinutes(50));
        call(board, "claude-a0", 1, false); // one name keeps being used
      }
      call(board, "claude-new", 1, false);

      assertThat(board.scopeEvictions()).isEqualTo(TierBoard.MAX_CLIENT_SCOPES - 1);
      assertThat(clientScopes(board)).as("claude-a0 and claude-new").isEqualTo(2);
    }
  }

  @Test
  void aDegradedScopeIsNeverDroppedUntilItIsBackAtT0() throws Exception {
    try (TierBoard board = board()) {
      call(board, "claude-sick", 25, true);
      board.evaluateAll();
      assertThat(board.tier("default", "claude-sick", List.of(new Target("emu", "claude-sick")))).isNotEqualTo(Tier.T0);
      fill(board, "claude-a");

      clock.advance(Duration.ofDays(7)); // no evaluation: claude-sick stays where it was
      call(board, "claude-new", 1, false);

      assertThat(board.degraded()).extracting(TierBoard.Degraded::alias).containsExactly("claude-sick");
      assertThat(aliases(board)).contains("claude-sick");

      for (int i = 0; i < 10; i++) { // evaluations with no traffic: it steps back up
        clock.advance(Duration.ofMinutes(1));
        board.evaluateAll();
      }
      fill(board, "claude-b"); // the bound is reached again; claude-sick is the only idle scope
      clock.advance(Duration.ofSeconds(5)); // one evaluation period: the next sweep is due
      call(board, "claude-new2", 1, false);

      assertThat(board.degraded()).isEmpty();
      assertThat(board.scopeEvictions()).as("claude-sick too, once at T0").isEqualTo(TierBoard.MAX_CLIENT_SCOPES);
    }
  }

  @Test
  void aConfiguredAliasScopeIsNeverDropped() throws Exception {
    try (TierBoard board = board()) {
      call(board, "ok2", 25, true);
      board.evaluateAll();
      Tier down = board.currentTier("default", "ok2");
      assertThat(down).isNotEqualTo(Tier.T0);
      for (int i = 0; i < 10; i++) {
        clock.advance(Duration.ofMinutes(1));
        board.evaluateAll();
      }
      assertThat(board.currentTier("default", "ok2")).isEqualTo(Tier.T0);
      fill(board, "claude-a");

      clock.advance(Duration.ofDays(30));
      call(board, "claude-new", 1, false);

      assertThat(aliases(board)).as("ok2 keeps its scope, and its last transition").contains("ok2");
      JsonNode ok2 = board.status().get(0).path("aliases").get(aliases(board).indexOf("ok2"));
      assertThat(ok2.path("last_transition").path("to").asText()).isEqualTo("T0");
    }
  }

  @Test
  void tenThousandNamesOverThreeWeeksKeepScopesAndCallWindowsBoundedByDroppingIdleOnes() throws Exception {
    try (TierBoard board = board()) {
      for (int day = 0; day < 20; day++) {
        for (int i = 0; i < 500; i++) {
          call(board, "claude-d" + day + "-" + i, 1, i % 2 == 0);
        }
        assertThat(clientScopes(board)).as("day %d", day).isLessThanOrEqualTo(TierBoard.MAX_CLIENT_SCOPES + 1);
        assertThat(board.windowCount()).as("day %d: ok2's, the others', emu/*", day)
            .isLessThanOrEqualTo(1 + TargetWindows.MAX_OTHERS + 1);
        clock.advance(Duration.ofDays(1));
      }
      assertThat(board.scopeEvictions()).isEqualTo(19L * TierBoard.MAX_CLIENT_SCOPES);
      assertThat(board.windowEvictions()).isGreaterThanOrEqualTo(19L * TargetWindows.MAX_OTHERS);
      assertThat(board.otherModelsTier("default")).as("one request a name: none stepped down").isEqualTo(Tier.T0);
    }
  }

  @Test
  void anIdleClientTargetWindowIsDroppedWhenANewTargetNeedsTheSlot() {
    Target known = Target.parse("emu/claude-3-haiku");
    TargetWindows windows = new TargetWindows(Set.of(known), Duration.ofSeconds(60), Duration.ofSeconds(5), clock);
    windows.record(known, SliOutcome.SUCCESS, Duration.ofMillis(5));
    for (int i = 0; i < TargetWindows.MAX_OTHERS; i++) {
      windows.record(new Target("emu", "claude-x" + i), SliOutcome.SERVER_ERROR, Duration.ofMillis(5));
    }
    windows.record(new Target("emu", "claude-y"), SliOutcome.SERVER_ERROR, Duration.ofMillis(5));
    assertThat(windows.targets()).contains(new Target("emu", "*")).doesNotContain(new Target("emu", "claude-y"));

    clock.advance(Duration.ofSeconds(119));
    windows.record(new Target("emu", "claude-y1"), SliOutcome.SUCCESS, Duration.ofMillis(5));
    assertThat(windows.evictions()).as("not idle for two windows yet").isZero();

    clock.advance(Duration.ofSeconds(1));
    windows.record(new Target("emu", "claude-y2"), SliOutcome.SUCCESS, Duration.ofMillis(5));

    assertThat(windows.evictions()).isEqualTo(TargetWindows.MAX_OTHERS);
    assertThat(windows.targets()).as("claude-y1 came a second early: it shares emu/*")
        .containsExactlyInAnyOrder(known, new Target("emu", "claude-y2"), new Target("emu", "*"));
    assertThat(windows.snapshot(new Target("emu", "claude-y2")).total()).isEqualTo(1);
  }

  @Test
  void readingAClientTargetMakesNoWindow() {
    TargetWindows windows = new TargetWindows(Set.of(), Duration.ofSeconds(60), Duration.ofSeconds(5), clock);

    assertThat(windows.snapshot(new Target("emu", "claude-never")).total()).isZero();
    assertThat(windows.read(List.of(new Target("emu", "claude-never")), 20).calls().total()).isZero();

    assertThat(windows.targets()).isEmpty();
  }
}
