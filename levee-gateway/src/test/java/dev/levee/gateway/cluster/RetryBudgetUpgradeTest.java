package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.core.chain.RetryBudgets;
import dev.levee.core.chain.Target;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rolling upgrade across the per-target retry budgets (docs/production.md): replicas of the
 * older release keep one bucket, {@code budget:{retry}}; newer ones one per configured target,
 * {@code budget:{retry:<upstream>/<model>}}, and {@code budget:{retry:overflow}}. Both run against
 * one Redis with the same script: neither errors, neither spends the other's tokens, and the old
 * key — written by the old replicas only, each time with a 1 h expiry — is never refreshed by a
 * new replica, so it expires within an hour of the last old replica's last command.
 */
class RetryBudgetUpgradeTest {

  private static final Target PRIMARY = Target.parse("emu/emu-529");
  private static final Target FALLBACK = Target.parse("emu/emu-ok");
  private static final long HOUR_MS = 3_600_000;

  private final RedisFixture redis = new RedisFixture();
  private final RedisClient client = RedisClient.create(RedisFixture.REDIS);
  private final StatefulRedisConnection<String, String> connection = client.connect();

  @AfterEach
  void cleanUp() {
    connection.close();
    client.shutdown();
    redis.close();
  }

  private long pttl(String key) {
    return connection.sync().pttl(redis.config.prefix() + key);
  }

  @Test
  void oldAndNewReplicasSpendSeparateBucketsAndTheOldKeyExpiresOnItsOwn() throws Exception {
    // the older release: Gateway built cluster.budget("retry", max, ratio), one bucket for every target
    SharedRetryBudget old = redis.replica(SystemClock.ticker()).budget("retry", 2, 0, 1);
    RetryBudgets upgraded = redis.replica(SystemClock.ticker()).budgets(List.of(PRIMARY, FALLBACK), 2, 0);

    assertThat(old.tryAcquire()).isTrue();
    assertThat(old.tryAcquire()).isTrue();
    assertThat(old.tryAcquire()).as("the old bucket, spent by the old replica").isFalse();
    long oldTtl = pttl("budget:{retry}");
    assertThat(oldTtl).as("the old key expires").isBetween(1L, HOUR_MS);

    assertThat(upgraded.of(PRIMARY).tryAcquire()).as("a new replica's bucket: not the old one").isTrue();
    assertThat(upgraded.of(PRIMARY).tryAcquire()).isTrue();
    assertThat(upgraded.of(PRIMARY).tryAcquire()).isFalse();
    assertThat(upgraded.of(FALLBACK).remaining()).isEqualTo(2.0);
    assertThat(upgraded.overflow().tryAcquire()).isTrue();
    ((SharedRetryBudget) upgraded.of(PRIMARY)).flush();

    assertThat(old.remaining()).as("the new replica's spending left the old bucket alone").isZero();
    assertThat(pttl("budget:{retry:emu/emu-529}")).isBetween(1L, HOUR_MS);
    assertThat(pttl("budget:{retry:overflow}")).isBetween(1L, HOUR_MS);
    long before = pttl("budget:{retry}");
    upgraded.of(PRIMARY).remaining();
    upgraded.of(FALLBACK).tryAcquire();
    upgraded.overflow().remaining();
    assertThat(pttl("budget:{retry}")).as("no new replica's command refreshes the old key's expiry")
        .isBetween(1L, before);
  }
}
