package dev.levee.gateway.cluster;

import dev.levee.core.time.ManualClock;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.tier.TestBoards;
import dev.levee.gateway.tier.TierBoard;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * Replicas for tests: independent {@link Cluster}s (each its own connections) on the real Redis
 * at 127.0.0.1:6379, under a cluster name unique to the test, whose keys are deleted afterwards
 * (never FLUSHALL: other engineers share this Redis).
 */
final class RedisFixture implements AutoCloseable {

  static final String REDIS = "redis://127.0.0.1:6379";

  /** The longest a replica may take to connect before the fixture reports Redis missing: a bound for a hang, not a latency. */
  private static final Duration CONNECT_LIMIT = Duration.ofMinutes(1);

  final ClusterConfig config;
  private final List<Cluster> replicas = new ArrayList<>();

  RedisFixture() {
    this(REDIS);
  }

  RedisFixture(String redis) {
    // generous timeouts: two shared CPU cores must not turn a slow answer into a test failure
    this.config = ClusterConfig.of(redis, "test-" + UUID.randomUUID().toString().substring(0, 8))
        .withTimeouts(Duration.ofMillis(500), Duration.ofMillis(50));
  }

  /** A replica connected to Redis ({@link #awaitConnected}). */
  Cluster replica(Ticker ticker) throws InterruptedException {
    return replica(config, ticker, true);
  }

  /** A replica whose link goes through {@code proxy} (the test cuts and restores it), connected ({@link #awaitConnected}). */
  Cluster replicaThrough(FaultyRedisProxy proxy, Ticker ticker) throws InterruptedException {
    return replica(ClusterConfig.of(proxy.uri(), config.name()).withTimeouts(Duration.ofMillis(500), Duration.ofMillis(50)),
        ticker, true);
  }

  /**
   * A new replica's tier board for the gateway config {@code yaml}, on {@code clock}, sharing its
   * decisions through the replica's link ({@link TestBoards#board}: it evaluates when the test says).
   */
  TierBoard board(String yaml, ManualClock clock) throws Exception {
    TierBoard board = TestBoards.board(yaml, clock);
    board.shareThrough(replica(clock).tiers());
    return board;
  }

  Cluster replica(ClusterConfig config, Ticker ticker, boolean awaitShared) throws InterruptedException {
    Cluster cluster = new Cluster(config, ticker, Duration.ofSeconds(3));
    replicas.add(cluster);
    if (awaitShared && !awaitConnected(cluster)) {
      throw new AssertionError("Redis at " + config.redis() + " did not answer: " + cluster.status()
          + " (.ci/run starts it; see docs/production.md)");
    }
    return cluster;
  }

  /**
   * Waits until {@code cluster}'s link shares state. No short bound: on a loaded box (two shared
   * cores, other JVMs) a cold start of the Redis client took over 5 s, which failed {@code
   * SharedTierBoardTest} before it began. It waits while the link is connecting or retrying, up to
   * {@link #CONNECT_LIMIT}, and gives up at once when Redis refuses the connection (not running).
   */
  private static boolean awaitConnected(Cluster cluster) throws InterruptedException {
    long end = System.nanoTime() + CONNECT_LIMIT.toNanos();
    while (!cluster.link().awaitShared(Duration.ofMillis(100))) {
      if (cluster.status().reason().contains("refused") || System.nanoTime() - end > 0) {
        return false;
      }
    }
    return true;
  }

  /** Waits until {@code condition} holds, at most {@code timeout}; returns whether it held. */
  static boolean eventually(Duration timeout, BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        return false;
      }
      Thread.sleep(2);
    }
    return true;
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The keys of this test's cluster that match {@code pattern} after its prefix (SCAN), e.g. {@code
   * "tier:{*"}, each named after the prefix, as {@link #get}, {@link #pttl} and {@link #delete} take them.
   */
  List<String> keys(String pattern) {
    RedisClient client = RedisClient.create(REDIS);
    List<String> keys = new ArrayList<>();
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        KeyScanCursor<String> page = c.sync().scan(cursor, ScanArgs.Builder.matches(config.prefix() + pattern).limit(500));
        page.getKeys().forEach(key -> keys.add(key.substring(config.prefix().length())));
        cursor = page;
      } while (!cursor.isFinished());
    } finally {
      client.shutdown();
    }
    return keys;
  }

  /** The value of this test's cluster's key {@code key} (after its prefix), or null when there is none. */
  String get(String key) {
    RedisClient client = RedisClient.create(REDIS);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      return c.sync().get(config.prefix() + key);
    } finally {
      client.shutdown();
    }
  }

  /** Sets each of this test's cluster's keys in {@code values} (after its prefix) to its value for {@code ttlMillis} ms. */
  void set(java.util.Map<String, String> values, long ttlMillis) {
    RedisClient client = RedisClient.create(REDIS);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      values.forEach((key, value) -> c.sync().psetex(config.prefix() + key, ttlMillis, value));
    } finally {
      client.shutdown();
    }
  }

  /**
   * Deletes this test's cluster's key {@code key} (after its prefix): a lease its holder stopped
   * renewing has run out, without waiting for its PX in real time.
   */
  void delete(String key) {
    RedisClient client = RedisClient.create(REDIS);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      c.sync().del(config.prefix() + key);
    } finally {
      client.shutdown();
    }
  }

  /** The time to live of this test's cluster's key {@code key} (after its prefix) in ms (-1: none, -2: no such key). */
  long pttl(String key) {
    RedisClient client = RedisClient.create(REDIS);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      return c.sync().pttl(config.prefix() + key);
    } finally {
      client.shutdown();
    }
  }

  @Override
  public void close() {
    replicas.forEach(Cluster::close);
    if (!config.redis().toString().equals(REDIS)) {
      return;
    }
    RedisClient client = RedisClient.create(REDIS);
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        KeyScanCursor<String> page = c.sync().scan(cursor, ScanArgs.Builder.matches(config.prefix() + "*").limit(500));
        if (!page.getKeys().isEmpty()) {
          c.sync().del(page.getKeys().toArray(String[]::new));
        }
        cursor = page;
      } while (!cursor.isFinished());
    } finally {
      client.shutdown();
    }
  }
}
