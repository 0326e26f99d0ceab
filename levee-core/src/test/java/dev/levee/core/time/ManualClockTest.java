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

  @Test
  void aScheduledTaskRunsWhenTimeIsAdvancedPastItsDueTimeAndNotBefore() {
    long start = clock.nanos();
    java.util.List<Long> ranAt = new java.util.ArrayList<>();
    clock.schedule(Duration.ofSeconds(2), () -> ranAt.add(clock.nanos() - start));

    clock.advance(Duration.ofMillis(1_999));
    assertThat(ranAt).isEmpty();

    clock.advance(Duration.ofSeconds(5));
    assertThat(ranAt).containsExactly(2_000_000_000L); // run with time set to its due reading
    assertThat(clock.nanos() - start).isEqualTo(6_999_000_000L);
  }

  @Test
  void tasksRunInOrderOfDueTimeAndATaskMayScheduleTheNextOne() {
    java.util.List<String> ran = new java.util.ArrayList<>();
    clock.schedule(Duration.ofSeconds(3), () -> ran.add("b"));
    clock.schedule(Duration.ofSeconds(1), () -> {
      ran.add("a");
      clock.schedule(Duration.ofSeconds(1), () -> ran.add("a+1"));
    });

    clock.advance(Duration.ofSeconds(10));

    assertThat(ran).containsExactly("a", "a+1", "b");
    assertThat(clock.pending()).isZero();
  }

  @Test
  void aCancelledTaskNeverRuns() {
    java.util.List<String> ran = new java.util.ArrayList<>();
    Scheduler.Scheduled task = clock.schedule(Duration.ofSeconds(1), () -> ran.add("x"));

    task.cancel();
    clock.advance(Duration.ofSeconds(2));

    assertThat(ran).isEmpty();
  }

  @Test
  void sleepingRunsTheTasksThatFallDueMeanwhile() {
    java.util.List<String> ran = new java.util.ArrayList<>();
    clock.schedule(Duration.ofMillis(500), () -> ran.add("timer"));

    clock.sleep(Duration.ofSeconds(1));

    assertThat(ran).containsExactly("timer");
  }
}
