package dev.levee.gateway.cluster;

import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.Scenario;
import dev.levee.gateway.GatewayClock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.SplittableRandom;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * {@link Replicas} on the real Redis at 127.0.0.1:6379 under a cluster name unique to the test
 * (a {@link RedisFixture}), for a {@code @RegisterExtension} field: after each test it closes the
 * replicas it started, then deletes the cluster's keys.
 */
final class ReplicasOnRedis implements AfterEachCallback {

  private final RedisFixture redis = new RedisFixture();
  private Replicas replicas;

  /** {@code count} gateways of one cluster; {@code sections} as {@link Replicas} takes them ({@code models:} …). */
  Replicas start(int count, String sections) throws Exception {
    replicas = new Replicas(count, sections, RedisFixture.REDIS, redis.config.name());
    return replicas;
  }

  /**
   * {@code count} gateways of one cluster in virtual time: their breakers, windows, retries and
   * evaluations on {@code clock} (jitter drawn from {@code seed}), wall-clock time the system's;
   * before an emulator that answers at once and plays {@code scenario} (null: none) on its own clock.
   */
  Replicas start(int count, String sections, ManualClock clock, long seed, Scenario scenario) throws Exception {
    GatewayClock virtual = new GatewayClock(clock, clock, InstantSource.system(), new SplittableRandom(seed), clock);
    EmulatorOptions options = EmulatorOptions.builder().timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO)
        .scenario(scenario).build();
    replicas = new Replicas(count, sections, RedisFixture.REDIS, redis.config.name(), options, virtual);
    return replicas;
  }

  /** The Redis of this test's cluster (its keys, their time to live). */
  RedisFixture redis() {
    return redis;
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    if (replicas != null) {
      replicas.close();
    }
    redis.close();
  }
}
