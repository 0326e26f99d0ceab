package dev.levee.gateway.tier;

import static dev.levee.gateway.tier.TestBoards.OVERLOADED;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 9): scopes were made on first use up to 256 in all; past
 * that every new feature-and-alias pair — a configured alias used for the first time included —
 * landed in the shared {@code *} scope. One tenant sending 400 invented model names that failed
 * took that scope to T2, and the next tenant's first request to a healthy configured alias was
 * answered at T2 with its {@code max_tokens} cut. The board alone, in virtual time.
 */
class ClientNamesNeverTakeAConfiguredAliasScopeRegressionTest {

  private static final List<Target> SICK2 = List.of(Target.parse("emu/claude-3-opus"));
  private static final List<Target> OK2 = List.of(Target.parse("emu/claude-3-haiku"));

  private final ManualClock clock = new ManualClock();

  private TierBoard board() throws Exception {
    String yaml = """
        upstreams:
          emu: { url: "http://127.0.0.1:1" }
        models:
          sick2: { chain: [emu/claude-3-opus] }
          ok2: { chain: [emu/claude-3-haiku] }
        features:
          search: { priority: standard }
        """;
    return TestBoards.board(yaml, clock);
  }

  /** One tenant's requests to invented names {@code claude-z0} … {@code claude-z<n-1>}, {@code times} each, all failed with a 529. */
  private void invent(TierBoard board, String feature, int n, int times) {
    for (int round = 0; round < times; round++) {
      for (int i = 0; i < n; i++) {
        String model = "claude-z" + i;
        Target target = new Target("emu", model);
        board.tier(feature, model, List.of(target));
        board.onFailure(target, OVERLOADED, Duration.ofMillis(5));
        board.failed(feature, model, Duration.ofMillis(5));
        clock.advance(Duration.ofMillis(1));
      }
    }
  }

  @Test
  void aConfiguredAliasUsedForTheFirstTimeAfterManyInventedNamesHasItsOwnHealthyScope() throws Exception {
    try (TierBoard board = board()) {
      invent(board, "default", 400, 1);
      board.evaluateAll();
      assertThat(board.tier("default", TierBoard.OTHER_MODELS, List.of(new Target("emu", "claude-z399"))))
          .as("the invented names' shared scope did step down").isNotEqualTo(Tier.T0);

      assertThat(board.tier("default", "ok2", OK2)).isEqualTo(Tier.T0);
      assertThat(board.tier("search", "ok2", OK2)).as("in every configured feature").isEqualTo(Tier.T0);
      board.onSuccess(OK2.getFirst(), Duration.ofMillis(40));
      board.answered("default", "ok2", null);
      board.evaluateAll();

      assertThat(board.tier("default", "ok2", OK2)).isEqualTo(Tier.T0);
      assertThat(board.cause("default", "ok2")).isNull();
      assertThat(board.degraded()).extracting(TierBoard.Degraded::alias).doesNotContain("ok2", "sick2");
    }
  }

  @Test
  void inventedNamesGetAtMostTheBoundOfOwnScopesThenShareOne() throws Exception {
    try (TierBoard board = board()) {
      invent(board, "default", 400, 1);
      invent(board, "default", 15, 25); // enough volume for their own scopes to step down
      invent(board, "search", 10, 1);
      board.tier("search", "sick2", SICK2);
      board.evaluateAll();

      JsonNode features = board.status();
      JsonNode defaults = feature(features, "default");
      JsonNode search = feature(features, "search");
      assertThat(defaults.path("other_models").path("scopes").asInt())
          .as("own scopes up to the bound, all features together, plus the shared one")
          .isEqualTo(TierBoard.MAX_CLIENT_SCOPES + 1);
      assertThat(search.path("other_models").path("scopes").asInt()).as("the bound is spent: only the shared one")
          .isEqualTo(1);
      assertThat(aliases(search)).contains("sick2", TierBoard.OTHER_MODELS);
      assertThat(defaults.path("aliases").size()).as("names below T0 listed up to a bound")
          .isLessThanOrEqualTo(TierBoard.MAX_LISTED + 1);
      assertThat(defaults.path("other_models").path("below_t0").asInt()).isGreaterThan(TierBoard.MAX_LISTED);
      assertThat(board.targetStatus().size()).as("target_health: configured targets and a bounded few others")
          .isLessThanOrEqualTo(2 + TierBoard.MAX_LISTED);
    }
  }

  private static JsonNode feature(JsonNode features, String name) {
    for (JsonNode f : features) {
      if (f.path("feature").asText().equals(name)) {
        return f;
      }
    }
    throw new AssertionError("no feature " + name + " in " + features);
  }

  private static List<String> aliases(JsonNode feature) {
    List<String> out = new ArrayList<>();
    feature.path("aliases").forEach(a -> out.add(a.path("alias").asText()));
    return out;
  }
}
