package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.upstream.Watchdog;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LateWatchesTest {

  private final ManualClock clock = new ManualClock();
  private final LateWatches watches = new LateWatches(new Watchdog(clock, clock), clock);

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
  void aScopeStillOpenAfterTheDelayIsWatchedOnceAndOneClosedBeforeNever() {
    Scope quick = open();
    Scope slow = open();
    clock.advance(LateWatches.WATCH_AFTER.minusNanos(1));
    quick.closed = true;
    assertThat(slow.watched).isZero();

    clock.advance(Duration.ofNanos(1));

    assertThat(slow.watched).isOne();
    assertThat(quick.watched).isZero();
    clock.advance(LateWatches.WATCH_AFTER.multipliedBy(3));
    assertThat(slow.watched).isOne();
  }

  @Test
  void scopesOpenedLaterAreWatchedAtTheirOwnTimeByTheNextSweep() {
    Scope first = open();
    clock.advance(LateWatches.WATCH_AFTER.dividedBy(2));
    Scope second = open();

    clock.advance(LateWatches.WATCH_AFTER.dividedBy(2));
    assertThat(first.watched).isOne();
    assertThat(second.watched).isZero();

    clock.advance(LateWatches.WATCH_AFTER.dividedBy(2));
    assertThat(second.watched).isOne();

    Scope afterAQuietSpell = open(); // no sweep was pending: the add schedules one
    clock.advance(LateWatches.WATCH_AFTER);
    assertThat(afterAQuietSpell.watched).isOne();
  }
}
