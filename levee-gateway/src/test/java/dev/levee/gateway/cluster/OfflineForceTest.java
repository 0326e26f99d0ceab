package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.core.tier.Tier;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A force or a lift made on a replica whose link is down reaches the others when it returns. */
class OfflineForceTest {

  private final RedisFixture redis = new RedisFixture();
  private final FaultyRedisProxy proxy;

  OfflineForceTest() throws Exception {
    proxy = new FaultyRedisProxy();
  }

  @AfterEach
  void cleanUp() {
    redis.close();
    proxy.close();
  }

  @Test
  void aForceAndALiftMadeWhileAwayAreWrittenWhenTheLinkReturns() throws Exception {
    Cluster a = redis.replicaThrough(proxy, SystemClock.ticker());
    SharedTiers b = redis.replica(SystemClock.ticker()).tiers();

    proxy.cut();
    assertThat(RedisFixture.eventually(Duration.ofSeconds(5), () -> a.status().mode() == ClusterStatus.Mode.LOCAL)).isTrue();
    assertThat(a.tiers().force("default", Tier.T2, Duration.ofMinutes(1))).as("this replica only, for now").isFalse();
    assertThat(a.tiers().forced("default")).contains(Tier.T2);
    assertThat(b.forced("default")).isEmpty();

    proxy.restore();
    assertThat(RedisFixture.eventually(Duration.ofSeconds(5), () -> b.forced("default").isPresent()))
        .as("written for the others once A's link is back").isTrue();
    assertThat(b.forced("default")).contains(Tier.T2);

    proxy.cut();
    assertThat(RedisFixture.eventually(Duration.ofSeconds(5), () -> a.status().mode() == ClusterStatus.Mode.LOCAL)).isTrue();
    a.tiers().unforce("default");
    assertThat(a.tiers().forced("default")).isEmpty();
    proxy.restore();
    assertThat(RedisFixture.eventually(Duration.ofSeconds(5), () -> b.forced("default").isEmpty()))
        .as("the lift too").isTrue();
    assertThat(a.tiers().forced("default")).isEmpty();
  }
}
