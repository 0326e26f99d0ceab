package dev.levee.core.tier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Hysteresis on a fake clock: evaluations every 5 s, as the gateway's scheduler will do. */
class TierControllerTest {

  private static final SliReading HEALTHY = new SliReading(120, 0, 0, 1000, 0, 0, 1000);
  private static final SliReading SERVER_ERRORS = new SliReading(120, 0.03, 0, 1000, 1, 1, 1000);
  private static final SliReading MUDDLED = new SliReading(120, 0.01, 0, 1000, 1, 1, 1000); // neither
  private static final SliReading BURNING = new SliReading(120, 0, 0.5, 1000, 100, 100, 1000);
  private static final Duration TICK = Duration.ofSeconds(5);

  private final ManualClock clock = new ManualClock();
  private final AtomicReference<SliReading> reading = new AtomicReference<>(HEALTHY);
  private final List<TierTransition> transitions = new ArrayList<>();

  private TierController controller(Priority priority) {
    TierController controller = new TierController("search", priority, new TierDecider(), reading::get,
        TierControllerConfig.DEFAULT, clock);
    controller.onTransition(transitions::add);
    return controller;
  }

  /** Evaluates {@code times} times, {@code TICK} apart, starting one tick from now. */
  private void tick(TierController controller, int times) {
    for (int i = 0; i < times; i++) {
      clock.advance(TICK);
      controller.evaluate();
    }
  }

  @Test
  void startsAtT0AndStaysThereWhileHealthy() {
    TierController controller = controller(Priority.STANDARD);

    tick(controller, 20);

    assertThat(controller.current()).isEqualTo(Tier.T0);
    assertThat(transitions).isEmpty();
  }

  @Test
  void aHeldStepUpKeepsTheHealthyRunAndStepsAtTheFirstEvaluationAfterTheHoldLifts() {
    TierController controller = controller(Priority.STANDARD);
    reading.set(SERVER_ERRORS);
    tick(controller, 1);
    assertThat(controller.current()).isEqualTo(Tier.T1);

    reading.set(HEALTHY.withStepUpHeld("emu/a: circuit open, its trial in 20 s"));
    tick(controller, 10); // 50 s healthy, longer than healthy-for (30 s), the step held throughout
    assertThat(controller.current()).isEqualTo(Tier.T1);
    assertThat(controller.status().lastDecision().reason()).contains("step up to T0 held: emu/a: circuit open");
    assertThat(controller.status().healthyRun()).isEqualTo(Duration.ofSeconds(45));

    reading.set(HEALTHY);
    tick(controller, 1);

    assertThat(controller.current()).isEqualTo(Tier.T0);
  }

  @Test
  void stepsDownAtTheFirstBadReading() {
    TierController controller = controller(Priority.STANDARD);
    reading.set(SERVER_ERRORS);

    clock.advance(TICK);
    long at = clock.nanos();
    controller.evaluate();

    assertThat(controller.current()).isEqualTo(Tier.T1);
    assertThat(transitions).containsExactly(new TierTransition("search", Tier.T0, Tier.T1,
        "5xx 3.0% >= 2.0%: one step down, T0 -> T1", at));
    assertThat(transitions.getFirst().isDown()).isTrue();
  }

  @Test
  void aBurningBudgetDropsSeveralTiersInOneTransition() {
    TierController controller = controller(Priority.OPTIONAL);
    reading.set(BURNING);

    tick(controller, 1);

    assertThat(controller.current()).isEqualTo(Tier.T3);
    assertThat(transitions).extracting(TierTransition::from, TierTransition::to)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(Tier.T0, Tier.T3));
  }

  @Test
  void aSecondStepDownOnSignalsWaitsForTheWindowToSettle() {
    TierController controller = controller(Priority.STANDARD);
    reading.set(SERVER_ERRORS);
    tick(controller, 1); // T1 at 5 s

    // when the same errors persist: 5 readings inside the 30 s settle period are held
    tick(controller, 5);
    assertThat(controller.current()).isEqualTo(Tier.T1);
    assertThat(controller.status().lastDecision().reason()).contains("settling");

    // then the reading 30 s after the step takes the next step
    tick(controller, 1);
    assertThat(controller.current()).isEqualTo(Tier.T2);
  }

  @Test
  void burnIsNotHeldBySettling() {
    TierController controller = controller(Priority.STANDARD);
    reading.set(SERVER_ERRORS);
    tick(controller, 1);

    reading.set(BURNING);
    tick(controller, 1);

    assertThat(controller.current()).isEqualTo(Tier.T2);
  }

  @Test
  void stepsUpOneTierPerThirtySecondsOfHealthyReadings() {
    TierController controller = controller(Priority.OPTIONAL);
    reading.set(BURNING);
    tick(controller, 1);
    assertThat(controller.current()).isEqualTo(Tier.T3);

    // given healthy readings from now on, the first one starts the run
    reading.set(HEALTHY);
    tick(controller, 1);
    long runStart = clock.nanos();
    // 25 s of healthy run: still T3
    tick(controller, 5);
    assertThat(controller.current()).isEqualTo(Tier.T3);
    assertThat(controller.status().healthyRun()).isEqualTo(Duration.ofSeconds(25));
    // the reading at 30 s steps up one tier
    tick(controller, 1);
    assertThat(controller.current()).isEqualTo(Tier.T2);
    assertThat(clock.nanos() - runStart).isEqualTo(Duration.ofSeconds(30).toNanos());
    // and each further tier needs its own 30 s
    tick(controller, 5);
    assertThat(controller.current()).isEqualTo(Tier.T2);
    tick(controller, 1);
    assertThat(controller.current()).isEqualTo(Tier.T1);
    tick(controller, 6);
    assertThat(controller.current()).isEqualTo(Tier.T0);

    assertThat(transitions).extracting(TierTransition::to).containsExactly(Tier.T3, Tier.T2, Tier.T1, Tier.T0);
    assertThat(transitions.get(1).reason()).endsWith("one step up, T3 -> T2 (healthy for 30 s)");
  }

  @ParameterizedTest(name = "healthy readings in a row: {0}")
  @ValueSource(ints = {3, 6})
  void aStormThatFlickersHealthyNeverStepsUp(int healthyInARow) {
    // 3 readings span 10 s of healthy run; 6 readings span 25 s, still short of 30 s
    TierController controller = controller(Priority.STANDARD);
    reading.set(BURNING);
    tick(controller, 1);
    assertThat(controller.current()).isEqualTo(Tier.T2);
    transitions.clear();

    // for about 10 minutes: a few healthy readings, then one that is not healthy
    for (int cycle = 0; cycle < 120 / (healthyInARow + 1); cycle++) {
      reading.set(HEALTHY);
      tick(controller, healthyInARow);
      reading.set(MUDDLED);
      tick(controller, 1);
    }

    assertThat(controller.current()).isEqualTo(Tier.T2);
    assertThat(transitions).isEmpty();
  }

  @Test
  void aForcedTierHoldsForItsDurationAndThenExpiresOnItsOwn() {
    TierController controller = controller(Priority.STANDARD);

    controller.force(Tier.T3, Duration.ofMinutes(2));
    assertThat(controller.current()).isEqualTo(Tier.T3);
    // evaluation goes on underneath: healthy readings keep the evaluated tier at T0
    tick(controller, 23); // 115 s
    assertThat(controller.current()).isEqualTo(Tier.T3);
    assertThat(controller.status().forcedRemaining()).isEqualTo(Duration.ofSeconds(5));

    // when the force runs out, the next read returns the evaluated tier without an evaluation
    clock.advance(TICK);
    assertThat(controller.current()).isEqualTo(Tier.T0);
    assertThat(controller.current()).isEqualTo(Tier.T0);

    assertThat(transitions).extracting(TierTransition::from, TierTransition::to, TierTransition::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(Tier.T0, Tier.T3, "forced to T3 for 120 s"),
            org.assertj.core.groups.Tuple.tuple(Tier.T3, Tier.T0, "force to T3 expired, back to evaluated T0"));
  }

  @Test
  void duringAForceTheEvaluatedTierKeepsMoving() {
    TierController controller = controller(Priority.STANDARD);
    controller.force(Tier.T0, Duration.ofMinutes(1)); // a drill: keep full service whatever happens
    reading.set(SERVER_ERRORS);

    tick(controller, 1);

    assertThat(controller.current()).isEqualTo(Tier.T0);
    assertThat(controller.status().automatic()).isEqualTo(Tier.T1);
    assertThat(transitions).isEmpty();

    controller.clearForce();
    assertThat(controller.current()).isEqualTo(Tier.T1);
    assertThat(transitions).extracting(TierTransition::reason)
        .containsExactly("force to T0 cleared, back to evaluated T1");
  }

  @Test
  void aForceMustHaveAPositiveDuration() {
    TierController controller = controller(Priority.STANDARD);
    assertThatThrownBy(() -> controller.force(Tier.T2, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aStepDownSoonAfterAStepUpMakesTheNextStepUpWaitOneMoreHealthyFor() {
    TierController controller = controller(Priority.STANDARD);
    reading.set(SERVER_ERRORS);
    tick(controller, 1); // T1
    reading.set(HEALTHY);
    tick(controller, 7); // healthy from the first of these: T0 after 30 s
    assertThat(controller.current()).isEqualTo(Tier.T0);

    reading.set(SERVER_ERRORS); // the tier above was not healthy after all: a flap
    tick(controller, 1);
    assertThat(controller.status().flaps()).isEqualTo(1);
    assertThat(controller.status().holdDown()).isEqualTo(Duration.ofSeconds(60));

    reading.set(HEALTHY);
    tick(controller, 7); // 30 s healthy: no longer enough
    assertThat(controller.current()).isEqualTo(Tier.T1);
    assertThat(controller.status().lastDecision().reason())
        .contains("held: healthy for 30 s of 60 s (T0 flapped 1 time: a step down within 120 s of a step up adds 30 s each)");
    tick(controller, 6); // 60 s healthy
    assertThat(controller.current()).isEqualTo(Tier.T0);
  }

  @Test
  void theHoldDownGrowsWithEachFlapUpToItsCapAndAStepUpThatHoldsForgetsTheFlaps() {
    TierController controller = controller(Priority.STANDARD);
    for (int flap = 0; flap < 12; flap++) {
      reading.set(SERVER_ERRORS);
      tick(controller, 1);
      reading.set(HEALTHY);
      while (controller.current() != Tier.T0) {
        tick(controller, 1);
      }
    }
    assertThat(controller.status().holdDown()).as("capped at 5 min (Envoy's max_ejection_time)")
        .isEqualTo(Duration.ofMinutes(5));

    tick(controller, 24); // the step up holds for the flap window (2 min)
    assertThat(controller.status().flaps()).isZero();
    reading.set(SERVER_ERRORS);
    tick(controller, 1);
    reading.set(HEALTHY);
    tick(controller, 7);
    assertThat(controller.current()).as("an unrelated outage later waits healthy-for again").isEqualTo(Tier.T0);
  }

  @Test
  void afterAFlapEvidenceThatTheTierAboveAnswersNowNeedsOnlyHealthyFor() {
    TierController controller = controller(Priority.STANDARD);
    reading.set(SERVER_ERRORS);
    tick(controller, 1);
    reading.set(HEALTHY);
    tick(controller, 7); // T0
    reading.set(SERVER_ERRORS);
    tick(controller, 1); // a flap of T0
    assertThat(controller.status().flaps()).isEqualTo(1);

    reading.set(HEALTHY.withAboveHealthy(true)); // a trial probe of the primary passed
    tick(controller, 7);

    assertThat(controller.current()).isEqualTo(Tier.T0);
  }

  @Test
  void aFlapLengthensOnlyTheStepUpIntoTheTierThatFlapped() {
    TierController controller = controller(Priority.STANDARD);
    reading.set(BURNING);
    tick(controller, 1); // T2
    reading.set(HEALTHY);
    tick(controller, 7); // T1
    reading.set(BURNING);
    tick(controller, 1); // back to T2: T1 flapped
    reading.set(HEALTHY);
    tick(controller, 13); // T1 after 60 s
    assertThat(controller.current()).isEqualTo(Tier.T1);
    tick(controller, 6); // T0 after 30 s: T0 never flapped
    assertThat(controller.current()).isEqualTo(Tier.T0);
  }
}
