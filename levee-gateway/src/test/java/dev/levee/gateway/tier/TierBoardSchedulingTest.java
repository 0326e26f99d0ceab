package dev.levee.gateway.tier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import java.time.Duration;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

/** The board evaluates its tiers on the injected scheduler: on virtual time, as the clock passes each period. */
class TierBoardSchedulingTest {

  private static final Target TARGET = new Target("up", "m");

  private final ManualClock clock = new ManualClock();

  private TierBoard board() throws Exception {
    GatewayConfig config = new ConfigLoader(name -> null).parse("""
        upstreams:
          up: { url: "http://127.0.0.1:1" }
        models:
          s:
            chain: [up/m]
        tiers: { evaluate-every: 5s }
        """, "test.yaml");
    return new TierBoard(config, clock, clock, InstantSource.system(), clock);
  }

  @Test
  void tiersAreEvaluatedEveryPeriodOfTheInjectedClock() throws Exception {
    try (TierBoard board = board()) {
      board.tier("default", "s", java.util.List.of(TARGET)); // a request of the alias makes its scope (issue 10)
      for (int i = 0; i < 50; i++) {
        board.onFailure(TARGET, Failure.of(FailureKind.SERVER_ERROR, 500, "api_error", "down"), Duration.ofMillis(50));
      }
      clock.advance(Duration.ofMillis(4_999));
      assertThat(board.tier("default")).as("no evaluation before the period ends").isEqualTo(Tier.T0);

      clock.advance(Duration.ofMillis(1));

      assertThat(board.tier("default")).isNotEqualTo(Tier.T0);
      assertThat(clock.pending()).as("the next evaluation is scheduled").isEqualTo(1);
    }
  }

  @Test
  void aClosedBoardSchedulesNothingMore() throws Exception {
    TierBoard board = board();

    board.close();
    clock.advance(Duration.ofMinutes(1));

    assertThat(clock.pending()).isZero();
  }
}
