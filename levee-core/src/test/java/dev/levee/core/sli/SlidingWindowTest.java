package dev.levee.core.sli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The bucketed window on a {@link ManualClock}. The default window is 60 s in 12 slices of 5 s;
 * slices are aligned to multiples of 5 s of the ticker, so each test starts on a slice boundary.
 */
class SlidingWindowTest {

  private static final Duration SLICE = Duration.ofSeconds(5);

  private final ManualClock clock = new ManualClock();
  private final SlidingWindow window = new SlidingWindow(clock);

  @BeforeEach
  void startOnASliceBoundary() {
    long intoSlice = Math.floorMod(clock.nanos(), SLICE.toNanos());
    clock.advance(Duration.ofNanos(SLICE.toNanos() - intoSlice));
  }

  private void record(SliOutcome outcome, int times) {
    for (int i = 0; i < times; i++) {
      window.record(outcome, Duration.ofMillis(10));
    }
  }

  @Test
  void anEmptyWindowReportsNothingAndAPerfectSuccessRate() {
    SliSnapshot snapshot = window.snapshot();

    assertThat(snapshot).isEqualTo(new SliSnapshot(60.0, 0, 0, 0, 0, 0, 0, 0));
    assertThat(snapshot.successRate()).isEqualTo(1.0);
    assertThat(snapshot.serverErrorRate()).isEqualTo(0.0);
    assertThat(snapshot.rateLimitedRate()).isEqualTo(0.0);
    assertThat(snapshot.perMinute()).isEqualTo(0.0);
  }

  @Test
  void aSuccessWithoutALatencySampleCountsButLeavesTheP99Alone() {
    window.record(SliOutcome.SUCCESS, Duration.ofMillis(40));
    window.record(SliOutcome.SUCCESS, null); // a JSON answer: its time is its length
    window.record(SliOutcome.SUCCESS, null);

    SliSnapshot snapshot = window.snapshot();

    assertThat(snapshot.successes()).isEqualTo(3);
    assertThat(snapshot.p99Millis()).isEqualTo(40);
  }

  @Test
  void eachOutcomeIsCountedInItsOwnColumn() {
    record(SliOutcome.SUCCESS, 6);
    record(SliOutcome.SERVER_ERROR, 3);
    record(SliOutcome.RATE_LIMITED, 1);
    record(SliOutcome.CLIENT_ERROR, 5);

    SliSnapshot snapshot = window.snapshot();

    assertThat(snapshot.successes()).isEqualTo(6);
    assertThat(snapshot.serverErrors()).isEqualTo(3);
    assertThat(snapshot.rateLimited()).isEqualTo(1);
    assertThat(snapshot.clientErrors()).isEqualTo(5);
  }

  @Test
  void ratesLeaveTheClientsOwnErrorsOutButTheCallRateCountsThem() {
    record(SliOutcome.SUCCESS, 6);
    record(SliOutcome.SERVER_ERROR, 3);
    record(SliOutcome.RATE_LIMITED, 1);
    record(SliOutcome.CLIENT_ERROR, 5);

    SliSnapshot snapshot = window.snapshot();

    assertThat(snapshot.total()).isEqualTo(10);
    assertThat(snapshot.successRate()).isEqualTo(0.6);
    assertThat(snapshot.serverErrorRate()).isEqualTo(0.3);
    assertThat(snapshot.rateLimitedRate()).isEqualTo(0.1);
    assertThat(snapshot.perMinute()).isEqualTo(15.0); // 15 calls in a 60 s window
  }

  @Test
  void percentilesComeFromTheLatenciesOfSuccessfulCalls() {
    for (int ms = 1; ms <= 100; ms++) {
      window.record(SliOutcome.SUCCESS, Duration.ofMillis(ms));
    }

    SliSnapshot snapshot = window.snapshot();

    assertThat(snapshot.p50Millis()).isEqualTo(50);
    assertThat(snapshot.p95Millis()).isEqualTo(95);
    assertThat(snapshot.p99Millis()).isEqualTo(99);
  }

  @Test
  void theLatencyOfAFailedCallDoesNotEnterThePercentiles() {
    window.record(SliOutcome.SUCCESS, Duration.ofMillis(40));
    window.record(SliOutcome.SERVER_ERROR, Duration.ofSeconds(20));
    window.record(SliOutcome.RATE_LIMITED, Duration.ofSeconds(20));
    window.record(SliOutcome.CLIENT_ERROR, Duration.ofSeconds(20));

    assertThat(window.snapshot().p99Millis()).isEqualTo(40);
  }

  @Test
  void percentilesMergeEverySliceInTheWindow() {
    for (int slice = 0; slice < 4; slice++) {
      for (int i = 0; i < 25; i++) {
        window.record(SliOutcome.SUCCESS, Duration.ofMillis(slice * 25 + i + 1)); // 1..100 overall
      }
      clock.advance(SLICE);
    }

    SliSnapshot snapshot = window.snapshot();

    assertThat(snapshot.successes()).isEqualTo(100);
    assertThat(snapshot.p50Millis()).isEqualTo(50);
    assertThat(snapshot.p99Millis()).isEqualTo(99);
  }

  @Test
  void largeLatenciesKeepTwoSignificantDigits() {
    window.record(SliOutcome.SUCCESS, Duration.ofMillis(12_345));

    assertThat(window.snapshot().p50Millis()).isBetween(12_345L, 12_469L); // within 1%
  }

  @Test
  void latenciesAreClampedToOneMillisecondAndOneHour() {
    window.record(SliOutcome.SUCCESS, Duration.ZERO);
    assertThat(window.snapshot().p50Millis()).isEqualTo(1);

    window.record(SliOutcome.SUCCESS, Duration.ofHours(3));
    window.record(SliOutcome.SUCCESS, Duration.ofHours(3));
    assertThat(window.snapshot().p99Millis()).isBetween(3_600_000L, 3_636_000L);
  }

  @Test
  void aCallStaysInTheWindowForSixtySeconds() {
    record(SliOutcome.SERVER_ERROR, 1);

    clock.advance(Duration.ofSeconds(60).minusNanos(1));

    assertThat(window.snapshot().serverErrors()).isEqualTo(1);
  }

  @Test
  void aCallAgesOutOnceItsSliceIsSixtySecondsOld() {
    record(SliOutcome.SERVER_ERROR, 1);

    clock.advance(Duration.ofSeconds(60));

    assertThat(window.snapshot().serverErrors()).isZero();
  }

  @Test
  void aFailureIsFreshWithinTheSpanAskedAndSuccessesOrClientErrorsNeverAre() {
    record(SliOutcome.SUCCESS, 3);
    record(SliOutcome.CLIENT_ERROR, 1);
    assertThat(window.failedWithin(Duration.ofSeconds(10))).isFalse();

    record(SliOutcome.RATE_LIMITED, 1);
    clock.advance(Duration.ofSeconds(10));
    assertThat(window.failedWithin(Duration.ofSeconds(10))).as("bounds included").isTrue();

    clock.advance(Duration.ofNanos(1));
    assertThat(window.failedWithin(Duration.ofSeconds(10))).isFalse();
    record(SliOutcome.SERVER_ERROR, 1);
    assertThat(window.failedWithin(Duration.ZERO)).isTrue();
  }

  @Test
  void clearForgetsEveryCallRecordedBeforeAndCountsTheNextOnes() {
    record(SliOutcome.SERVER_ERROR, 5);
    record(SliOutcome.SUCCESS, 2);
    clock.advance(Duration.ofSeconds(7));
    record(SliOutcome.SERVER_ERROR, 1);

    window.clear();

    assertThat(window.snapshot().total()).isZero();
    assertThat(window.snapshot().p99Millis()).isZero();
    assertThat(window.failedWithin(Duration.ofSeconds(60))).isFalse();
    record(SliOutcome.SUCCESS, 4); // the same slice as the last failure: counted afresh
    assertThat(window.snapshot()).extracting(SliSnapshot::successes, SliSnapshot::serverErrors).containsExactly(4L, 0L);
  }

  @Test
  void theWindowSlidesOneSliceAtATime() {
    record(SliOutcome.SUCCESS, 1); // slice 0
    clock.advance(SLICE);
    record(SliOutcome.SUCCESS, 2); // slice 1
    clock.advance(SLICE);
    record(SliOutcome.SUCCESS, 4); // slice 2

    clock.advance(Duration.ofSeconds(50)); // slice 12: slice 0 has left
    assertThat(window.snapshot().successes()).isEqualTo(6);
    clock.advance(SLICE); // slice 13: slice 1 has left
    assertThat(window.snapshot().successes()).isEqualTo(4);
  }

  @Test
  void reusingTheSlotOfAnAgedSliceStartsItEmpty() {
    window.record(SliOutcome.SUCCESS, Duration.ofMillis(200));
    record(SliOutcome.SERVER_ERROR, 3);
    clock.advance(Duration.ofSeconds(60)); // the same slot of the ring, one lap later

    window.record(SliOutcome.SUCCESS, Duration.ofMillis(20));

    SliSnapshot snapshot = window.snapshot();
    assertThat(snapshot.successes()).isEqualTo(1);
    assertThat(snapshot.serverErrors()).isZero();
    assertThat(snapshot.p99Millis()).isEqualTo(20);
  }

  @Test
  void aCustomWindowScalesTheCallRateToAMinute() {
    SlidingWindow tenSeconds = new SlidingWindow(Duration.ofSeconds(10), 5, clock);
    for (int i = 0; i < 5; i++) {
      tenSeconds.record(SliOutcome.SUCCESS, Duration.ofMillis(10));
    }

    SliSnapshot snapshot = tenSeconds.snapshot();

    assertThat(snapshot.windowSeconds()).isEqualTo(10.0);
    assertThat(snapshot.perMinute()).isCloseTo(30.0, within(1e-9));
  }

  @Test
  void aWindowWithoutSlicesOrLengthIsRefused() {
    assertThatThrownBy(() -> new SlidingWindow(Duration.ofSeconds(60), 0, clock))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SlidingWindow(Duration.ZERO, 12, clock))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void callsRecordedFromManyThreadsAreAllCounted() throws Exception {
    int threads = 8;
    int each = 5_000;
    CountDownLatch start = new CountDownLatch(1);
    try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        SliOutcome outcome = t % 2 == 0 ? SliOutcome.SUCCESS : SliOutcome.SERVER_ERROR;
        done.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < each; i++) {
            window.record(outcome, Duration.ofMillis(7));
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get();
      }
    }

    SliSnapshot snapshot = window.snapshot();
    assertThat(snapshot.successes()).isEqualTo(threads / 2 * each);
    assertThat(snapshot.serverErrors()).isEqualTo(threads / 2 * each);
  }

  @Test
  void theNewestSpanReadsOnlyTheSlicesThatOverlapIt() {
    window.record(SliOutcome.SUCCESS, Duration.ofMillis(1_500)); // slow, 20 s ago by the end
    clock.advance(Duration.ofSeconds(12));
    window.record(SliOutcome.SUCCESS, Duration.ofMillis(60));
    clock.advance(Duration.ofSeconds(8)); // now 20 s after the slow one: the last 10 s overlap three slices

    SliSnapshot recent = window.snapshot(Duration.ofSeconds(10));

    assertThat(recent.successes()).isEqualTo(1);
    assertThat(recent.p99Millis()).isEqualTo(60);
    assertThat(recent.windowSeconds()).isEqualTo(15.0);
    assertThat(window.snapshot().p99Millis()).as("the whole window still remembers").isGreaterThanOrEqualTo(1_490);
    assertThat(window.snapshot(Duration.ofMinutes(5)).windowSeconds()).as("at most the window").isEqualTo(60.0);
  }
}
