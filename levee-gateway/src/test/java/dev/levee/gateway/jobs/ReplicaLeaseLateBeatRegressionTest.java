package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (session 12's leftovers): a gateway whose replica id another process held waited 1.5
 * heartbeats to see whether the holder beat. The holder's beats are a fixed delay apart, counted
 * from the end of its previous heartbeat's work (renewing its jobs' leases), so a live holder
 * whose beat came later than half an interval was taken for a crashed one and its id taken over:
 * both would run each other's jobs again at their next start. The newcomer now waits two beats.
 * Virtual time: the newcomer's wait advances a {@link ManualClock} that runs the holder's beat.
 */
class ReplicaLeaseLateBeatRegressionTest {

  private static final Duration BEAT = Duration.ofSeconds(20); // a third of the default 60 s lease

  private final ManualClock clock = new ManualClock();
  private final InstantSource wall = () -> Instant.EPOCH.plusNanos(clock.nanos());
  private final QueueConfig config = TestStores.sqlite();
  private final Database db = Database.open(config);

  @AfterEach
  void close() {
    db.close();
    TestStores.drop(config);
  }

  @ParameterizedTest(name = "late by {0} % of an interval")
  @ValueSource(ints = {60, 99})
  void aLiveHolderWhoseBeatIsLateIsSeen(int latePercent) throws Exception {
    ReplicaLease holder = new ReplicaLease(db, "gw-1");
    holder.acquire(wall, BEAT, clock); // free: taken at once, its first beat now
    // its next beat is late: its previous heartbeat's work took that long
    clock.schedule(BEAT.plus(BEAT.multipliedBy(latePercent).dividedBy(100)), () -> holder.beat(wall.instant()));

    ReplicaLease newcomer = new ReplicaLease(db, "gw-1");

    assertThatThrownBy(() -> newcomer.acquire(wall, BEAT, clock)).as("old: taken over after 1.5 beats")
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("held by another live gateway");
    assertThat(holder.beat(wall.instant())).as("the holder keeps its id").isTrue();
  }

  @Test
  void aSilentHoldersIdIsTakenOverAfterTwoBeats() throws Exception {
    ReplicaLease crashed = new ReplicaLease(db, "gw-1");
    crashed.acquire(wall, BEAT, clock); // never beats again
    long before = clock.nanos();

    new ReplicaLease(db, "gw-1").acquire(wall, BEAT, clock);

    assertThat(Duration.ofNanos(clock.nanos() - before)).isEqualTo(BEAT.multipliedBy(2));
    assertThat(crashed.beat(wall.instant())).as("its hold was taken over").isFalse();
  }
}
