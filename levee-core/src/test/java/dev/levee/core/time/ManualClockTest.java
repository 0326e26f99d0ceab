package dev.levee.core.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ManualClockTest {

  private final ManualClock clock = new ManualClock();

  @Test
  void timeDoesNotStartAtZero() {
    assertThat(clock.nanos()).isNotZero();
  }

  @Test
  void timeMovesOnlyWhenAdvanced() {
    long start = clock.nanos();

    clock.advance(Duration.ofSeconds(2)).advanceMillis(250);

    assertThat(clock.nanos() - start).isEqualTo(2_250_000_000L);
  }

  @Test
  void sleepingAdvancesTimeInsteadOfWaiting() {
    long start = clock.nanos();

    clock.sleep(Duration.ofMinutes(10));

    assertThat(clock.nanos() - start).isEqualTo(Duration.ofMinutes(10).toNanos());
  }

  @Test
  void sleepingForNothingOrLessLeavesTimeAlone() {
    long start = clock.nanos();

    clock.sleep(Duration.ZERO);
    clock.sleep(Duration.ofSeconds(-1));

    assertThat(clock.nanos()).isEqualTo(start);
  }

  @Test
  void timeCannotBeMovedBackwards() {
    assertThatThrownBy(() -> clock.advance(Duration.ofNanos(-1))).isInstanceOf(IllegalArgumentException.class);
  }
}
