package dev.levee.gateway.cluster;

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

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    if (replicas != null) {
      replicas.close();
    }
    redis.close();
  }
}
