package dev.levee.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.time.ManualClock;
import dev.levee.gateway.health.Readiness;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link DrainDelay}: not ready at once, then a wait on the gateway's clock, once per gateway. */
class DrainDelayTest {

  private final ManualClock clock = new ManualClock();
  private final Readiness readiness = new Readiness();

  DrainDelayTest() {
    readiness.ready();
  }

  @Test
  void zeroMarksNotReadyAndReturnsAtOnceWithNoTimer() {
    new DrainDelay(Duration.ZERO, clock).begin(readiness);

    assertThat(readiness.state()).isEqualTo(Readiness.State.DRAINING);
    assertThat(clock.pending()).isZero();
  }

  @Test
  void aDelayIsWaitedOnTheClockAndASecondCallerWaitsForTheSameOne() throws Exception {
    DrainDelay delay = new DrainDelay(Duration.ofSeconds(5), clock);
    Thread first = Thread.ofVirtual().start(() -> delay.begin(readiness));
    awaitDraining();
    Thread second = Thread.ofVirtual().start(() -> delay.begin(readiness));
    awaitWaiting(second);

    clock.advance(Duration.ofMillis(4_999));
    assertThat(first.isAlive()).isTrue();
    assertThat(second.isAlive()).isTrue();
    assertThat(clock.pending()).as("one timer, whoever calls").isEqualTo(1);

    clock.advance(Duration.ofMillis(1));
    first.join(Duration.ofSeconds(10));
    second.join(Duration.ofSeconds(10));
    assertThat(first.isAlive()).isFalse();
    assertThat(second.isAlive()).isFalse();
    delay.begin(readiness); // a later close: the delay has passed already
  }

  @Test
  void anInterruptEndsTheWaitWithTheFlagSet() throws Exception {
    DrainDelay delay = new DrainDelay(Duration.ofSeconds(5), clock);
    boolean[] flag = new boolean[1];
    Thread waiting = Thread.ofVirtual().start(() -> {
      delay.begin(readiness);
      flag[0] = Thread.currentThread().isInterrupted();
    });
    awaitDraining();

    waiting.interrupt();
    waiting.join(Duration.ofSeconds(10));
    assertThat(waiting.isAlive()).isFalse();
    assertThat(flag[0]).isTrue();
  }

  @Test
  void aNegativeDelayIsRefused() {
    assertThatThrownBy(() -> new DrainDelay(Duration.ofMillis(-1), clock)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("drain-delay must not be negative, was -1ms");
  }

  /** {@code thread} parked (in the wait; bounded spin, no sleep). */
  private static void awaitWaiting(Thread thread) {
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (thread.getState() != Thread.State.WAITING && System.nanoTime() < until) {
      Thread.onSpinWait();
    }
    assertThat(thread.getState()).isEqualTo(Thread.State.WAITING);
  }

  /** The timer is set before not-ready shows (bounded spin, no sleep). */
  private void awaitDraining() {
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (readiness.state() != Readiness.State.DRAINING && System.nanoTime() < until) {
      Thread.onSpinWait();
    }
    assertThat(readiness.state()).isEqualTo(Readiness.State.DRAINING);
  }
}
