package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The pacing decision on a hand-moved clock: given interactive requests starting and ending at
 * known instants, how many jobs may start, and when to look again.
 */
class PacingTest {

  private static final long MS = 1_000_000L;
  private long now = 1_000 * MS;
  private final Pacing pacing = new Pacing(PacingConfig.defaults(), 8, () -> now);

  private void advance(long millis) {
    now += millis * MS;
  }

  @Test
  void withoutInteractiveTrafficEveryFreeWorkerMayStartAndOnlyAnEventChangesThat() {
    assertThat(pacing.decide(0)).isEqualTo(new Pacing.Decision(8, -1));
    assertThat(pacing.decide(3)).isEqualTo(new Pacing.Decision(5, -1));
  }

  @Test
  void noJobStartsWithinYieldForOfARequestStartingOrEnding() {
    pacing.enter();
    assertThat(pacing.decide(0)).isEqualTo(new Pacing.Decision(0, 5 * MS));
    advance(2);
    pacing.exit();
    advance(1);
    assertThat(pacing.decide(0)).isEqualTo(new Pacing.Decision(0, 4 * MS));
  }

  @Test
  void aRequestInFlightPastYieldForSharesWithOneJobUntilItEnds() {
    pacing.enter();
    advance(6);
    assertThat(pacing.decide(0)).as("one may start; the end of the request is the next change")
        .isEqualTo(new Pacing.Decision(1, -1));
    assertThat(pacing.decide(1)).isEqualTo(new Pacing.Decision(0, -1));
  }

  @Test
  void afterTheLastRequestOneJobAtATimeForSharedForThenFullSpeed() {
    pacing.enter();
    pacing.exit();
    advance(5);
    assertThat(pacing.decide(0)).isEqualTo(new Pacing.Decision(1, 995 * MS));
    advance(994);
    assertThat(pacing.decide(1)).isEqualTo(new Pacing.Decision(0, 1 * MS));
    advance(1);
    assertThat(pacing.decide(1)).isEqualTo(new Pacing.Decision(7, -1));
  }

  @Test
  void underContinuousTrafficQueuedWorkStillStartsOnceASharedFor() {
    for (int i = 0; i < 999; i++) { // a request every millisecond: always inside yield-for
      pacing.enter();
      pacing.exit();
      assertThat(pacing.decide(0).startable()).isZero();
      advance(1);
    }
    pacing.enter();
    pacing.exit();
    assertThat(pacing.decide(0).startable()).isZero();
    advance(1);
    pacing.enter();
    assertThat(pacing.decide(0).startable()).as("a second without a start").isEqualTo(1);
    pacing.started(1);
    assertThat(pacing.decide(0).startable()).isZero();
  }

  @Test
  void holdingBackUnderTrafficLooksAgainWhenTheStarvationGuardWouldLetOneStart() {
    pacing.enter();
    advance(998);
    pacing.exit();
    assertThat(pacing.decide(0)).as("the guard is 2 ms away, yield-for 5 ms")
        .isEqualTo(new Pacing.Decision(0, 2 * MS));
  }

  @Test
  void theLastRequestEndingTellsTheListenerOnce() {
    AtomicInteger quiet = new AtomicInteger();
    pacing.onQuiet(quiet::incrementAndGet);
    pacing.enter();
    pacing.enter();
    pacing.exit();
    assertThat(quiet).hasValue(0);
    pacing.exit();
    assertThat(quiet).hasValue(1);
    assertThat(pacing.inFlight()).isZero();
  }

  @Test
  void switchedOffEveryFreeWorkerStartsWhateverTheTraffic() {
    Pacing off = new Pacing(PacingConfig.off(), 8, () -> now);
    off.enter();
    assertThat(off.decide(2)).isEqualTo(new Pacing.Decision(6, -1));
  }

  @Test
  void sharedWorkersNeverExceedTheWorkers() {
    Pacing small = new Pacing(new PacingConfig(true, Duration.ZERO, 4, null), 2, () -> now);
    small.enter();
    assertThat(small.decide(0)).isEqualTo(new Pacing.Decision(2, -1));
  }

  @Test
  void outOfRangeSettingsAreRefusedWithTheirName() {
    assertThatThrownBy(() -> new PacingConfig(null, Duration.ofSeconds(2), null, null))
        .hasMessageContaining("pacing.yield-for");
    assertThatThrownBy(() -> new PacingConfig(null, null, 0, null)).hasMessageContaining("pacing.shared-workers");
    assertThatThrownBy(() -> new PacingConfig(null, null, null, Duration.ZERO)).hasMessageContaining("pacing.shared-for");
  }
}
