package dev.levee.anthropic.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The head deadlines on virtual time: one check for every waiting call, each deadline fired on time. */
class HeadDeadlinesTest {

  private final ManualClock clock = new ManualClock();
  private final HeadDeadlines deadlines = new HeadDeadlines(clock, clock);
  private final AtomicInteger expired = new AtomicInteger();

  private HeadDeadlines.Wait in(Duration timeout) {
    return deadlines.start(deadlines.now() + timeout.toNanos(), expired::incrementAndGet);
  }

  @Test
  void aDeadlineFiresOnceAtItsInstant() {
    HeadDeadlines.Wait wait = in(Duration.ofMillis(95));

    clock.advance(Duration.ofMillis(95).minusNanos(1));
    assertThat(expired).hasValue(0);
    clock.advance(Duration.ofNanos(1));
    assertThat(expired).hasValue(1);
    clock.advance(Duration.ofSeconds(1));

    assertThat(expired).hasValue(1);
    assertThat(wait.expired()).isTrue();
    assertThat(wait.end()).as("the call learns the deadline won").isFalse();
  }

  @Test
  void anEndedWaitNeverFiresAndTheSweepStopsOnceNothingWaits() {
    HeadDeadlines.Wait wait = in(Duration.ofMillis(50));
    clock.advance(Duration.ofMillis(20));

    assertThat(wait.end()).isTrue();
    clock.advance(Duration.ofSeconds(1));

    assertThat(expired).hasValue(0);
    assertThat(wait.expired()).isFalse();
    assertThat(deadlines.size()).isZero();
    assertThat(clock.pending()).as("no timer left running").isZero();
  }

  @Test
  void manyWaitsShareOneTimer() {
    for (int i = 0; i < 100; i++) {
      in(Duration.ofSeconds(1 + i % 3));
    }
    assertThat(clock.pending()).isEqualTo(1);

    clock.advance(Duration.ofMillis(1_000));
    assertThat(expired).hasValue(34);
    assertThat(clock.pending()).isEqualTo(1);
    clock.advance(Duration.ofSeconds(3));
    assertThat(expired).hasValue(100);
    assertThat(clock.pending()).isZero();
  }

  @Test
  void aSoonerDeadlineAddedLaterStillFiresOnTime() {
    in(Duration.ofSeconds(30));
    clock.advance(Duration.ofMillis(3));
    HeadDeadlines.Wait soon = in(Duration.ofMillis(1));

    clock.advance(Duration.ofMillis(1));

    assertThat(soon.expired()).isTrue();
    assertThat(expired).hasValue(1);
  }

  /**
   * Regression (issue 11, the c=1 tail): while calls waited, a sweep ran every 10 ms, each a
   * wake-up of the timer thread that could delay the request path.
   */
  @Test
  void callsOneAfterAnotherWithinTheirDeadlinesRunNoTimerAtAll() {
    AtomicInteger ran = new AtomicInteger();
    HeadDeadlines counted = new HeadDeadlines(clock, (delay, task) -> clock.schedule(delay, () -> {
      ran.incrementAndGet();
      task.run();
    }));

    for (int i = 0; i < 5_000; i++) { // one call per 200 µs for a second, each under a 2 s limit
      HeadDeadlines.Wait wait = counted.start(counted.now() + Duration.ofSeconds(2).toNanos(), expired::incrementAndGet);
      clock.advance(Duration.ofNanos(200_000));
      assertThat(wait.end()).isTrue();
    }

    assertThat(ran).hasValue(0);
    assertThat(expired).hasValue(0);
  }
}
