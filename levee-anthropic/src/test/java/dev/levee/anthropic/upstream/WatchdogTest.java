package dev.levee.anthropic.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The watchdog on virtual time: its limits fire as the injected clock passes them, never by waiting. */
class WatchdogTest {

  private final ManualClock clock = new ManualClock();
  private final Watchdog watchdog = new Watchdog(clock, clock);
  private final AtomicInteger expired = new AtomicInteger();

  @Test
  void aTimerWithoutProgressFiresOnceWhenItsLimitPasses() {
    Watchdog.Timer timer = watchdog.start(Duration.ofSeconds(2), expired::incrementAndGet);

    clock.advance(Duration.ofMillis(1_999));
    assertThat(expired).hasValue(0);
    clock.advance(Duration.ofMillis(1));
    clock.advance(Duration.ofSeconds(10));

    assertThat(expired).hasValue(1);
    assertThat(timer.fired()).isTrue();
  }

  @Test
  void progressPushesTheLimitBackWithoutFiring() {
    Watchdog.Timer timer = watchdog.start(Duration.ofSeconds(2), expired::incrementAndGet);

    for (int i = 0; i < 10; i++) {
      clock.advance(Duration.ofMillis(1_500));
      timer.progress();
    }
    assertThat(expired).hasValue(0);

    clock.advance(Duration.ofSeconds(2));
    assertThat(expired).hasValue(1);
  }

  @Test
  void rearmingReplacesTheLimitAndCountsFromNow() {
    Watchdog.Timer timer = watchdog.start(Duration.ofSeconds(15), expired::incrementAndGet); // time to first token
    clock.advance(Duration.ofSeconds(1));

    timer.rearm(Duration.ofSeconds(30)); // stream idle
    clock.advance(Duration.ofSeconds(29));
    assertThat(expired).hasValue(0);

    clock.advance(Duration.ofSeconds(1));
    assertThat(expired).hasValue(1);
  }

  @Test
  void aClosedTimerNeverFiresAndLeavesNothingScheduledOnceItsCheckHasPassed() {
    Watchdog.Timer timer = watchdog.start(Duration.ofSeconds(2), expired::incrementAndGet);

    timer.close();
    clock.advance(Duration.ofMinutes(1));

    assertThat(expired).hasValue(0);
    assertThat(clock.pending()).isZero();
  }

  @Test
  void eachTimerFiresAtItsOwnLimitThoughTheyShareOneCheck() {
    AtomicInteger shortOne = new AtomicInteger();
    watchdog.start(Duration.ofSeconds(10), expired::incrementAndGet);
    clock.advance(Duration.ofSeconds(1));
    watchdog.start(Duration.ofSeconds(2), shortOne::incrementAndGet); // ends before the pending check

    clock.advance(Duration.ofSeconds(2));
    assertThat(shortOne).hasValue(1);
    assertThat(expired).hasValue(0);
    clock.advance(Duration.ofMillis(6_999));
    assertThat(expired).hasValue(0);
    clock.advance(Duration.ofMillis(1));
    assertThat(expired).hasValue(1);
  }

  /**
   * Regression (issue 11, the c=1 tail): every JSON request started and cancelled a timer of its
   * own; whenever it became the earliest task the timer thread woke up, a context switch on the
   * request path.
   */
  @Test
  void timersStartedAndClosedOneAfterAnotherScheduleOneCheckPerLimit() {
    AtomicInteger scheduled = new AtomicInteger();
    Watchdog counted = new Watchdog(clock, (delay, task) -> {
      scheduled.incrementAndGet();
      return clock.schedule(delay, task);
    });

    for (int i = 0; i < 10_000; i++) { // one request per 200 µs for 2 s, each under a 1 s limit
      Watchdog.Timer timer = counted.start(Duration.ofSeconds(1), expired::incrementAndGet);
      clock.advance(Duration.ofNanos(200_000));
      timer.close();
    }

    assertThat(scheduled.get()).isLessThanOrEqualTo(3);
    assertThat(expired).hasValue(0);
  }

  @Test
  void aTimerClosedBeforeItsCheckDoesNotKeepTheOthersFromFiring() {
    Watchdog.Timer first = watchdog.start(Duration.ofSeconds(1), () -> {});
    watchdog.start(Duration.ofSeconds(3), expired::incrementAndGet);
    first.close();

    clock.advance(Duration.ofSeconds(3));

    assertThat(expired).hasValue(1);
  }

  @Test
  void aLimitThatRunsOutWhileTheBytesWaitForLeveeWaitsForTheReaderThenFiresIfTheUpstreamStillOwes() {
    AtomicBoolean unread = new AtomicBoolean(true); // the answer arrived; the reading thread has not run
    Watchdog.Timer timer = watchdog.start(Duration.ofSeconds(2), expired::incrementAndGet, unread::get);

    clock.advance(Duration.ofSeconds(9)); // a starved gateway's reader, seconds late
    assertThat(expired).hasValue(0);
    assertThat(timer.fired()).isFalse();
    assertThat(watchdog.lateReaders()).isEqualTo(1);

    unread.set(false); // Levee took the bytes, and what the limit waits for is still owed
    clock.advance(Watchdog.RECHECK);

    assertThat(expired).hasValue(1);
    assertThat(timer.fired()).isTrue();
  }

  @Test
  void aReaderThatTakesWhatArrivedAndClosesTheTimerLeavesItUnfired() {
    AtomicBoolean unread = new AtomicBoolean(true);
    Watchdog.Timer timer = watchdog.start(Duration.ofSeconds(2), expired::incrementAndGet, unread::get);
    clock.advance(Duration.ofSeconds(5));

    timer.close(); // the late reader read the answer in full
    clock.advance(Duration.ofMinutes(1));

    assertThat(expired).hasValue(0);
    assertThat(clock.pending()).as("no recheck left running").isZero();
  }

  @Test
  void nothingInLeveesHandsFiresAtTheLimitAsBefore() {
    Watchdog.Timer timer = watchdog.start(Duration.ofSeconds(2), expired::incrementAndGet, () -> false);

    clock.advance(Duration.ofSeconds(2));

    assertThat(timer.fired()).isTrue();
    assertThat(watchdog.lateReaders()).isZero();
  }

  @Test
  void aReaderStuckForeverDoesNotKeepTheTimerFromFiringPastTheLongestWaitForIt() {
    Watchdog.Timer timer = watchdog.start(Duration.ofSeconds(2), expired::incrementAndGet, () -> true);

    clock.advance(Duration.ofSeconds(2).plus(Watchdog.MAX_LATE_READER).minus(Watchdog.RECHECK));
    assertThat(expired).hasValue(0);
    clock.advance(Watchdog.RECHECK);

    assertThat(expired).hasValue(1);
    assertThat(timer.fired()).isTrue();
  }
}
