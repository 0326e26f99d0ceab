package dev.levee.gateway.tier;

import static dev.levee.gateway.tier.TestBoards.OVERLOADED;

import dev.levee.core.chain.Target;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.List;

/**
 * Two aliases of feature {@code default} sharing a fallback, for board tests: {@code smart} =
 * [claude-sick, claude-small] and {@code steady} = [claude-well, claude-small], all on upstream
 * {@code anthropic}; and the traffic in which smart's primary fails every call.
 */
final class SmartAndSteady {

  static final Target SICK = Target.parse("anthropic/claude-sick");
  static final Target WELL = Target.parse("anthropic/claude-well");
  static final Target SMALL = Target.parse("anthropic/claude-small");
  static final List<Target> SMART = List.of(SICK, SMALL);
  static final List<Target> STEADY = List.of(WELL, SMALL);

  /** The config: the {@code anthropic} upstream and the two aliases. */
  static final String YAML = """
      upstreams:
        anthropic: { url: "https://api.anthropic.com" }
      models:
        smart: { chain: [anthropic/claude-sick, anthropic/claude-small] }
        steady: { chain: [anthropic/claude-well, anthropic/claude-small] }
      """;

  private SmartAndSteady() {}

  /**
   * {@code n} client requests of each alias, 100 ms apart: smart's primary fails every time (a
   * 529 in 30 ms) and its fallback answers (40 ms); steady's primary answers (40 ms).
   */
  static void traffic(TierBoard board, ManualClock clock, int n) {
    for (int i = 0; i < n; i++) {
      board.tier("default", "smart", SMART);
      board.tier("default", "steady", STEADY);
      board.onFailure(SICK, OVERLOADED, Duration.ofMillis(30));
      board.onSuccess(SMALL, Duration.ofMillis(40));
      board.answered("default", "smart", Duration.ofMillis(70));
      board.onSuccess(WELL, Duration.ofMillis(40));
      board.answered("default", "steady", Duration.ofMillis(40));
      clock.advance(Duration.ofMillis(100));
    }
  }
}
