package dev.levee.core.slo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.levee.core.sli.SliOutcome;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SloTrackerTest {

  private final ManualClock clock = new ManualClock();
  private final SloTracker slo = new SloTracker(clock);

  private void record(int successes, int failures) {
    for (int i = 0; i < successes; i++) slo.recordSuccess();
    for (int i = 0; i < failures; i++) slo.recordFailure();
  }

  /** Moves the clock to the start of the next one-minute bucket, so tests can reason in whole buckets. */
  private void alignToMinute() {
    long minute = Duration.ofMinutes(1).toNanos();
    clock.advance(Duration.ofNanos(minute - Math.floorMod(clock.nanos(), minute)));
  }

  @Test
  void aTrackerThatSawNothingBurnsNothing() {
    assertThat(slo.burnRate(Duration.ofMinutes(5))).isZero();
    assertThat(slo.burnRates()).isEqualTo(BurnRates.NONE);
  }

  @Test
  void clearForgetsEveryCallAndCountsTheNextOnesAfresh() {
    record(10, 10);
    clock.advance(Duration.ofMinutes(2));
    record(0, 5);

    slo.clear();

    assertThat(slo.burnRates()).isEqualTo(BurnRates.NONE);
    record(99, 1); // in the same bucket as the last failures: counted alone
    assertThat(slo.burnRate(Duration.ofMinutes(5))).isCloseTo(2.0, within(1e-9));
    assertThat(slo.burnRates().requests5m()).isEqualTo(100);
  }

  @Test
  void burnIsTheFailureShareOverTheErrorBudget() {
    // given a 99.5% target, 7.2% failures burn at 14.4 (SRE workbook ch. 5)
    record(928, 72);

    assertThat(slo.burnRate(Duration.ofMinutes(5))).isCloseTo(14.4, within(1e-9));
    assertThat(slo.burnRate(Duration.ofHours(1))).isCloseTo(14.4, within(1e-9));
    assertThat(slo.burnRates().requests5m()).isEqualTo(1000);
  }

  @Test
  void theTargetSetsTheBudget() {
    SloTracker strict = new SloTracker(0.999, clock);
    for (int i = 0; i < 99; i++) strict.recordSuccess();
    strict.recordFailure();

    assertThat(strict.burnRate(Duration.ofMinutes(5))).isCloseTo(10, within(1e-9));
    assertThat(strict.target()).isEqualTo(0.999);
  }

  @Test
  void failuresLeaveTheShortWindowFirstAndTheLongOneAfterAnHour() {
    // given a burst of failures, then healthy traffic every minute
    record(0, 50);
    for (int minute = 1; minute <= 6; minute++) {
      clock.advance(Duration.ofMinutes(1));
      record(100, 0);
    }

    // then after 6 minutes the 5 min window is clean while the hour still remembers the burst
    BurnRates burn = slo.burnRates();
    assertThat(burn.burn5m()).isZero();
    assertThat(burn.burn1h()).isCloseTo(50.0 / 650 / 0.005, within(1e-9));

    // when the burst is more than an hour old
    clock.advance(Duration.ofMinutes(56));
    assertThat(slo.burnRate(Duration.ofHours(1))).isZero();
  }

  @Test
  void theWindowEdgeCountsTheShareOfTheOldestBucketItStillCovers() {
    // given 100 failures in one minute bucket
    alignToMinute();
    record(0, 100);
    // when the 5 min window's edge falls in the middle of that bucket (5.5 min later)
    clock.advance(Duration.ofSeconds(330));
    record(50, 0);

    // then half of the bucket counts: 50 failures against 50 successes
    assertThat(slo.burnRate(Duration.ofMinutes(5))).isCloseTo(0.5 / 0.005, within(1e-9));
    assertThat(slo.burnRates().requests5m()).isEqualTo(100);
  }

  @Test
  void aWindowShorterThanABucketCountsPartOfTheCurrentBucket() {
    alignToMinute();
    record(0, 10);
    clock.advance(Duration.ofSeconds(40));
    record(10, 0);

    // the current bucket's calls span 40 s; a 20 s window covers half of them
    assertThat(slo.burnRate(Duration.ofSeconds(20))).isCloseTo(0.5 / 0.005, within(1e-9));
  }

  @Test
  void theBurnWindowsCanBeChosen() {
    record(0, 10);
    clock.advance(Duration.ofMinutes(3));
    record(10, 0);

    BurnRates burn = slo.burnRates(Duration.ofMinutes(30), Duration.ofMinutes(2));

    assertThat(burn.burn1h()).isCloseTo(0.5 / 0.005, within(1e-9));
    assertThat(burn.burn5m()).isZero();
    assertThat(burn.requests5m()).isEqualTo(10);
  }

  @Test
  void clientErrorsAndCancelledCallsSpendNoBudget() {
    slo.record(SliOutcome.SUCCESS);
    slo.record(SliOutcome.CLIENT_ERROR);
    slo.record(null);
    slo.record(SliOutcome.RATE_LIMITED);
    slo.record(SliOutcome.SERVER_ERROR);
    slo.record(SliOutcome.SUCCESS);

    assertThat(slo.burnRates().requests5m()).isEqualTo(4);
    assertThat(slo.burnRate(Duration.ofMinutes(5))).isCloseTo(0.5 / 0.005, within(1e-9));
  }

  @Test
  void memoryIsReusedAcrossLapsOfTheRing() {
    record(0, 10);
    // when a whole horizon and more passes without calls, then one success
    clock.advance(Duration.ofHours(3).plusSeconds(7));
    record(1, 0);

    assertThat(slo.burnRate(Duration.ofHours(1))).isZero();
    assertThat(slo.burnRates().requests5m()).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(doubles = {0, 1, -0.5, 1.5, Double.NaN})
  void aTargetOutsideZeroToOneIsRefused(double target) {
    assertThatThrownBy(() -> new SloTracker(target, clock)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aWindowBeyondTheHorizonIsRefused() {
    assertThatThrownBy(() -> slo.burnRate(Duration.ofMinutes(61))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> slo.burnRate(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    SloTracker shortHorizon = new SloTracker(0.99, Duration.ofMinutes(10), Duration.ofMinutes(1), clock);
    assertThatThrownBy(shortHorizon::burnRates).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void concurrentRecordsAreAllCounted() throws Exception {
    int threads = 4;
    int perThread = 10_000;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      workers.add(Thread.ofPlatform().start(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        for (int i = 0; i < perThread; i++) {
          if (i % 10 == 0) slo.recordFailure(); else slo.recordSuccess();
        }
      }));
    }
    start.countDown();
    for (Thread worker : workers) worker.join();

    BurnRates burn = slo.burnRates();
    assertThat(burn.requests5m()).isEqualTo((long) threads * perThread);
    assertThat(burn.burn5m()).isCloseTo(0.1 / 0.005, within(1e-9));
  }
}
