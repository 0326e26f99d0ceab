package dev.levee.core.bound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BoundedTableTest {

  private final ManualClock clock = new ManualClock();
  private final AtomicInteger created = new AtomicInteger();
  private final BoundedTable<String, int[]> table = new BoundedTable<>(3, Duration.ofMinutes(10), clock,
      List.of("pinned"), k -> {
        created.incrementAndGet();
        return new int[1];
      });

  @Test
  void aKeyKeepsItsEntryWhileItIsUsed() {
    int[] first = table.get("a");

    assertThat(table.get("a")).isSameAs(first);
    assertThat(created).hasValue(1);
  }

  @Test
  void pastTheBoundEntriesAreEvictedAndCountedNeverShared() {
    for (int i = 0; i < 50; i++) {
      table.get("k" + i);
    }

    assertThat(table.entries()).hasSizeLessThanOrEqualTo(3);
    assertThat(table.evictions()).isGreaterThanOrEqualTo(47);
    assertThat(table.get("new")).isNotSameAs(table.get("k49")); // each key its own entry
  }

  @Test
  void anIdleEntryIsDroppedAndRecreatedFresh() {
    int[] old = table.get("a");
    old[0] = 42;

    clock.advance(Duration.ofMinutes(10).plusMillis(1));

    int[] fresh = table.get("a");
    assertThat(fresh).isNotSameAs(old);
    assertThat(fresh[0]).isZero();
    assertThat(table.evictions()).isEqualTo(1);
  }

  @Test
  void usingAnEntryKeepsItFromIdling() {
    int[] kept = table.get("a");
    for (int i = 0; i < 5; i++) {
      clock.advance(Duration.ofMinutes(5));
      assertThat(table.get("a")).isSameAs(kept);
    }
  }

  @Test
  void peekingIsNotAUse() {
    int[] old = table.get("a");
    clock.advance(Duration.ofMinutes(6));
    assertThat(table.peek("a")).isSameAs(old);
    assertThat(table.peek("never")).isNull();

    clock.advance(Duration.ofMinutes(6));

    assertThat(table.peek("a")).isNull();
    assertThat(table.entries()).doesNotContainKey("never");
  }

  @Test
  void pinnedKeysOutliveTheBoundAndIdleness() {
    int[] pinned = table.get("pinned");
    for (int i = 0; i < 50; i++) {
      table.get("k" + i);
    }
    clock.advance(Duration.ofDays(1));

    assertThat(table.get("pinned")).isSameAs(pinned);
    assertThat(table.peek("pinned")).isSameAs(pinned);
  }

  @Test
  void aBoundBelowOneOrANonPositiveIdleTimeIsRefused() {
    assertThatThrownBy(() -> new BoundedTable<String, String>(0, Duration.ofSeconds(1), clock, List.of(), k -> k))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BoundedTable<String, String>(1, Duration.ZERO, clock, List.of(), k -> k))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
