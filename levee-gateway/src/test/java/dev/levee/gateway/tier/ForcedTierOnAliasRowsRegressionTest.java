package dev.levee.gateway.tier;

import static dev.levee.gateway.tier.SmartAndSteady.SMART;
import static dev.levee.gateway.tier.SmartAndSteady.STEADY;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 12): while a feature was forced to T3 ({@code POST
 * /admin/tiers/{feature}}), each of its alias rows in {@code GET /admin/tiers} still said {@code
 * tier: T0}, the scope's own tier, though every request through it got T3. An alias row's {@code
 * tier} is now what its requests get, with {@code forced: true}; {@code automatic} keeps the
 * scope's own.
 */
class ForcedTierOnAliasRowsRegressionTest {

  private final ManualClock clock = new ManualClock();

  @Test
  void aForcedFeaturesAliasRowsSayTheForcedTierAndThatItIsForced() throws Exception {
    try (TierBoard board = TestBoards.board(SmartAndSteady.YAML, clock)) {
      SmartAndSteady.traffic(board, clock, 30);
      board.evaluateAll(); // smart's primary fails: smart steps down to T1; steady stays at T0
      board.force("default", Tier.T3, Duration.ofMinutes(10));

      JsonNode aliases = board.status().get(0).path("aliases");
      assertThat(aliases).hasSize(2);
      for (JsonNode row : aliases) {
        String alias = row.path("alias").asText();
        Tier applies = board.tier("default", alias, alias.equals("smart") ? SMART : STEADY);
        assertThat(applies).isEqualTo(Tier.T3);
        assertThat(row.path("tier").asText()).as(alias).isEqualTo("T3");
        assertThat(row.path("forced").asBoolean()).as(alias).isTrue();
      }
      assertThat(aliases.get(0).path("automatic").asText()).isEqualTo("T1");
      assertThat(aliases.get(1).path("automatic").asText()).isEqualTo("T0");
    }
  }

  @Test
  void withoutAForceAnAliasRowSaysItsOwnTierAndNotForced() throws Exception {
    try (TierBoard board = TestBoards.board(SmartAndSteady.YAML, clock)) {
      SmartAndSteady.traffic(board, clock, 30);
      board.evaluateAll();

      JsonNode smart = board.status().get(0).path("aliases").get(0);
      assertThat(smart.path("alias").asText()).isEqualTo("smart");
      assertThat(smart.path("tier").asText()).isEqualTo("T1").isEqualTo(smart.path("automatic").asText());
      assertThat(smart.path("forced").asBoolean()).isFalse();
    }
  }
}
