package dev.levee.core.tier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link TierController#adopt}: a controller that takes over a feature's evaluation starts from the
 * tier another evaluator decided, without a transition, and the usual rules apply from there.
 */
class TierControllerAdoptTest {

  private static final SliReading HEALTHY = new SliReading(120, 0, 0, 1000, 0, 0, 1000);
  /** 5xx on the calls, and the clients see them too (5%): signals reach T2. */
  private static final SliReading FAILING = new SliReading(120, 0.03, 0, 1000, 1, 1, 1000, 0.05, "emu/a", true);
  private static final Duration TICK = Duration.ofSeconds(5);

  private final ManualClock clock = new ManualClock();
  private final AtomicReference<SliReading> reading = new AtomicReference<>(HEALTHY);
  private final List<TierTransition> transitions = new ArrayList<>();
  private final TierController controller = new TierController("search", Priority.STANDARD, new TierDecider(),
      reading::get, TierControllerConfig.DEFAULT, clock);

  {
    controller.onTransition(transitions::add);
  }

  private void tick(int times) {
    for (int i = 0; i < times; i++) {
      clock.advance(TICK);
      controller.evaluate();
    }
  }

  @Test
  void anAdoptedTierIsNoTransitionAndStepsUpOnlyAfterAFreshHealthyRun() {
    tick(10); // healthy at T0 for 50 s: a run that must not count after the adoption

    assertThat(controller.adopt(Tier.T2, "adopted T2")).isEqualTo(Tier.T0);
    assertThat(controller.current()).isEqualTo(Tier.T2);
    assertThat(controller.status().lastDecision().reason()).isEqualTo("adopted T2");
    assertThat(transitions).isEmpty();

    tick(6); // 25 s of healthy readings after the adoption (the first starts the run)
    assertThat(controller.current()).isEqualTo(Tier.T2);
    tick(1);
    assertThat(controller.current()).isEqualTo(Tier.T1);
    tick(5);
    assertThat(controller.current()).isEqualTo(Tier.T1);
    tick(1);
    assertThat(controller.current()).isEqualTo(Tier.T0);
    assertThat(transitions).extracting(TierTransition::from, TierTransition::to)
        .map(t -> t.toList())
        .containsExactly(List.of(Tier.T2, Tier.T1), List.of(Tier.T1, Tier.T0));
  }

  @Test
  void anAdoptionHoldsNoLaterStepDownButAStepUpIntoItCountsForFlaps() {
    assertThat(controller.adopt(Tier.T1, "adopted T1")).isEqualTo(Tier.T0);
    reading.set(FAILING);
    tick(1);
    assertThat(controller.current()).as("no settling after an adoption").isEqualTo(Tier.T2);

    clock.advance(Duration.ofSeconds(30)); // that step down has settled
    controller.adopt(Tier.T1, "adopted T1 again"); // above: a step up into T1 made now
    tick(1); // a step down out of it at once: a flap of T1
    assertThat(controller.current()).isEqualTo(Tier.T2);
    assertThat(controller.status().flaps()).isEqualTo(1);
    assertThat(controller.status().holdDown()).isEqualTo(Duration.ofSeconds(60));
  }
}
