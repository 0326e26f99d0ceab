package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.upstream.Watchdog;
import dev.levee.core.time.ManualClock;
import dev.levee.core.time.Scheduler;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LateWatchesTest {

  private final ManualClock clock = new ManualClock();
  private final AtomicInteger timersStarted = new AtomicInteger();
  private final Scheduler counting = (delay, task) -> {
    timersStarted.incrementAndGet();
    return clock.schedule(delay, task);
  };
  private final LateWatches watches = new LateWatches(new Watchdog(clock, counting), clock);

  private final class Scope implements LateWatches.Waiting {
    final long openedAt = watches.now();
    boolean closed;
    int watched;

    @Override
    public long openedAt() {
      return openedAt;
    }

    @Override
    public boolean closed() {
      return closed;
    }

    @Override
    public void watch() {
      if (!closed) {
        watched++;
      }
    }
  }

  private Scope open() {
    Scope scope = new Scope();
    watches.add(scope);
    return scope;
  }

  @Test
  void anArrivalStartsTheWatchOfAScopeStillOpenAfterTheDelayOnceAndOfOneClosedBeforeNever() {
    Scope quick = open();
    Scope slow = open();
    clock.advance(LateWatches.WATCH_AFTER.minusNanos(1));
    quick.closed = true;
    open();
    assertThat(slow.watched).isZero();

    clock.advance(Duration.ofNanos(1));
    open();

    assertThat(slow.watched).isOne();
    assertThat(quick.watched).isZero();
    clock.advance(LateWatches.SWEEP_EVERY.multipliedBy(3));
    open();
    assertThat(slow.watched).isOne();
  }

  @Test
  void withoutArrivalsTheTimerStartsAWatchAtTheLatestOneSweepPeriodAfterItIsDue() {
    Scope alone = open();
    clock.advance(LateWatches.SWEEP_EVERY.minusNanos(1));
    assertThat(alone.watched).isZero();
    clock.advance(Duration.ofNanos(1));
    assertThat(alone.watched).isOne();
    assertThat(clock.pending()).as("no sweep while nothing waits").isZero();

    Scope quick = open(); // no sweep was pending: the add schedules one
    clock.advance(LateWatches.SWEEP_EVERY.minusMillis(1));
    quick.closed = true;
    Scope late = open(); // just before the timer's sweep: not due then
    clock.advance(Duration.ofMillis(1));
    assertThat(late.watched).isZero();

    clock.advance(LateWatches.SWEEP_EVERY.minusNanos(1));
    assertThat(late.watched).isZero();
    clock.advance(Duration.ofNanos(1));
    assertThat(late.watched).isOne();
    assertThat(quick.watched).isZero();
  }

  /** Regression (issue 11, the c=1 tail): the sweep timer woke the timer thread every 5 ms under traffic. */
  @Test
  void oneRequestAtATimeForASecondStartsATimerOnlyOncePerSweepPeriod() {
    for (int i = 0; i < 5_000; i++) { // 5,000 requests of 150 µs, 50 µs apart
      Scope scope = open();
      clock.advance(Duration.ofNanos(150_000));
      scope.closed = true;
      clock.advance(Duration.ofNanos(50_000));
    }

    assertThat(timersStarted.get()).isLessThanOrEqualTo(
        (int) (Duration.ofSeconds(1).toNanos() / LateWatches.SWEEP_EVERY.toNanos()) + 1);
  }
}
