package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Review: reading a forced tier took two round trips to Redis ({@code MGET}, then {@code PTTL} for
 * the force's end), and forcing or lifting a tier two more ({@code PSETEX} or {@code DEL}, then
 * {@code PUBLISH}); and the cluster's flusher, which writes what was forced while Redis was away,
 * wrote a force or lift a second time while its own call was still writing it (four commands for
 * one force). Each read and write of a feature's tiers is one script now, written once.
 */
class TierRoundTripsRegressionTest {

  @AutoClose
  private final RedisFixture redis = new RedisFixture();
  private final ManualClock frozen = new ManualClock(); // local copies never expire: every read below is Redis's

  @Test
  void readingAForcedTierAndForcingOrLiftingOneCostOneRoundTripEach() throws Exception {
    SharedTiers a = redis.replica(frozen).tiers();
    SharedTiers b = redis.replica(frozen).tiers();
    try (RoundTrips trips = new RoundTrips(redis)) {
      SoftAssertions soft = new SoftAssertions();
      soft.assertThat(trips.of(() -> assertThat(a.force("chat", Tier.T2, Duration.ofMinutes(10))).isTrue()))
          .as("force: old PSETEX + PUBLISH").hasSize(1);

      soft.assertThat(trips.of(() -> assertThat(b.current("chat")).isEqualTo(Tier.T2)))
          .as("read: old MGET + PTTL").hasSize(1);
      soft.assertThat(b.forcedRemaining("chat")).as("the force's end, read in the same trip")
          .isBetween(Duration.ofMinutes(9), Duration.ofMinutes(10));

      soft.assertThat(trips.of(() -> b.unforce("chat"))).as("lift: old DEL + PUBLISH").hasSize(1);
      soft.assertThat(RedisFixture.eventually(Duration.ofSeconds(5), () -> a.current("chat") == Tier.T0)).isTrue();
      soft.assertAll();
    }
  }
}
