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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Without a circuit breaker (breaker off, or failures that never trip it) nothing tells a scope at
 * T1 that the primary it skips is still down: the reduced target reads healthy, so the scope stepped
 * back up after every {@code healthy-for}, failed on the primary, stepped down, and so on — T0 and
 * T1 in turn every ~35 s for as long as the outage lasted. Now each step down within the flap window
 * of a step up adds one {@code healthy-for} to the next step up's wait (Envoy outlier detection's
 * ejection time), up to 5 min, and a step up that holds forgets the flaps.
 *
 * <p>The board alone in virtual time: a request every 100 ms through {@code smart: [sick, small]}
 * (at T0 the primary fails and the fallback answers; at T1 the reduced target answers), an
 * evaluation every 5 s, no circuits watched.
 */
class FlapWithoutABreakerRegressionTest {

  private static final Target SICK = Target.parse("anthropic/claude-sick");
  private static final Target SMALL = Target.parse("anthropic/claude-small");
  private static final List<Target> SMART = List.of(SICK, SMALL);
  private static final Failure OVERLOADED = Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "busy");
  private static final Duration EVALUATE_EVERY = Duration.ofSeconds(5);

  private final ManualClock clock = new ManualClock();
  private final List<Long> stepsUp = new ArrayList<>(); // ticker nanos of each T1 -> T0
  private boolean primaryDown = true;
  private Tier last = Tier.T0;

  private TierBoard board() throws Exception {
    GatewayConfig config = new ConfigLoader(Map.<String, String>of()::get).parse("""
        upstreams:
          anthropic: { url: "https://api.anthropic.com" }
        models:
          smart: { chain: [anthropic/claude-sick, anthropic/claude-small] }
        """, "test.yaml");
    return new TierBoard(config, clock, clock, InstantSource.system(), (delay, task) -> () -> { }); // evaluated below
  }

  /** {@code duration} of traffic, one request each 100 ms, evaluating every 5 s. */
  private void run(TierBoard board, Duration duration) {
    long steps = duration.toMillis() / 100;
    for (long i = 1; i <= steps; i++) {
      Tier tier = board.tier("default", "smart", SMART);
      if (last == Tier.T1 && tier == Tier.T0) {
        stepsUp.add(clock.nanos());
      }
      last = tier;
      if (tier == Tier.T0 && primaryDown) {
        board.onFailure(SICK, OVERLOADED, Duration.ofMillis(30));
      } else if (tier == Tier.T0) {
        board.onSuccess(SICK, Duration.ofMillis(40), true);
      }
      if (tier != Tier.T0 || primaryDown) {
        board.onSuccess(SMALL, Duration.ofMillis(40), true); // the fallback, or the reduced target at T1
      }
      board.answered("default", "smart", Duration.ofMillis(70));
      clock.advance(Duration.ofMillis(100));
      if (i % (EVALUATE_EVERY.toMillis() / 100) == 0) {
        board.evaluateAll();
      }
    }
  }

  @Test
  void aPrimaryDownWithoutABreakerStepsUpLessAndLessOftenAndAHeldStepUpForgetsTheFlaps() throws Exception {
    try (TierBoard board = board()) {
      run(board, Duration.ofMinutes(10)); // the primary down throughout

      assertThat(stepsUp).as("step ups into the failing primary in 10 min (before: one every 40 s, 14)")
          .hasSizeLessThanOrEqualTo(6);
      List<Long> gaps = new ArrayList<>();
      for (int i = 1; i < stepsUp.size(); i++) {
        gaps.add(stepsUp.get(i) - stepsUp.get(i - 1));
      }
      assertThat(gaps).as("each flap lengthens the wait for the next step up").isSorted().doesNotHaveDuplicates();
      assertThat(board.tier("default", "smart", SMART)).isEqualTo(Tier.T1);

      primaryDown = false; // the primary heals
      stepsUp.clear();
      run(board, Duration.ofMinutes(6)); // longer than the longest hold-down (5 min) and the flap window (2 min)
      assertThat(board.tier("default", "smart", SMART)).isEqualTo(Tier.T0);
      assertThat(stepsUp).hasSize(1);

      primaryDown = true; // a new outage, long after
      run(board, Duration.ofSeconds(10));
      assertThat(board.tier("default", "smart", SMART)).isEqualTo(Tier.T1);
      primaryDown = false;
      stepsUp.clear();
      long healed = clock.nanos();
      run(board, Duration.ofSeconds(60));
      assertThat(stepsUp).as("back at T0 after healthy-for (30 s) and an evaluation: the old flaps are forgotten")
          .hasSize(1);
      assertThat(Duration.ofNanos(stepsUp.getFirst() - healed)).isLessThanOrEqualTo(Duration.ofSeconds(40));
    }
  }
}
