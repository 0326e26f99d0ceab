package dev.levee.gateway.cluster;

import static dev.levee.gateway.cluster.RedisFixture.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Redis down, then back: every shared operation answers from local state meanwhile, and the
 * replica rejoins by itself. Uses a closed loopback port, and a private redis-server on a free
 * port that the test starts and stops (never the shared one on 6379).
 */
class RedisAwayTest {

  private RedisFixture redis;
  private Process server;
  @TempDir
  Path dir; // the redis-server's working folder and log

  @AfterEach
  void cleanUp() throws Exception {
    if (redis != null) redis.close();
    stopServer();
  }

  @Test
  void withNoRedisEveryOperationIsDecidedLocallyAndTheReplicaSaysSo() throws Exception {
    redis = new RedisFixture("redis://127.0.0.1:" + RedisFixture.freePort()); // nothing listens there
    ManualClock clock = new ManualClock();
    Cluster cluster = redis.replica(redis.config, clock, false);
    SharedBreaker breaker = cluster.breaker("emu/primary", CircuitBreakerConfig.of(2, Duration.ofSeconds(30), Duration.ofSeconds(30)), Duration.ofSeconds(10));
    SharedRetryBudget budget = cluster.budget("interactive", 3, 0);

    ((SharedBreaker.Admitted) breaker.tryAcquire()).permit().failure();
    ((SharedBreaker.Admitted) breaker.tryAcquire()).permit().failure();
    assertThat(breaker.tryAcquire()).as("the local breaker opened").isInstanceOf(SharedBreaker.Rejected.class);
    assertThat(budget.tryAcquire()).isTrue();
    assertThat(budget.tryAcquire()).isTrue();
    assertThat(budget.tryAcquire()).isTrue();
    assertThat(budget.tryAcquire()).as("local budget, max 3").isFalse();
    cluster.cooldowns().coolDown("emu/primary", Duration.ofSeconds(10));
    assertThat(cluster.cooldowns().remaining("emu/primary")).isEqualTo(Duration.ofSeconds(10));
    assertThat(cluster.tiers().evaluates("chat")).as("alone, this replica evaluates").isTrue();
    assertThat(cluster.tiers().publish("chat", Tier.T1)).contains(Tier.T0);
    assertThat(cluster.tiers().force("chat", Tier.T3, Duration.ofMinutes(1))).isFalse();
    assertThat(cluster.tiers().current("chat")).isEqualTo(Tier.T3);

    ClusterStatus status = cluster.status();
    assertThat(status.mode()).isEqualTo(ClusterStatus.Mode.LOCAL);
    assertThat(status.reason()).isNotEmpty();
    assertThat(status.redis()).doesNotContain("@");
  }

  @Test
  void redisStoppedMidRunThenRestartedEmpty_theReplicaGoesLocalAndRejoinsByItself() throws Exception {
    int port = RedisFixture.freePort();
    startServer(port);
    redis = new RedisFixture("redis://127.0.0.1:" + port);
    Cluster a = redis.replica(SystemClock.ticker());
    Cluster b = redis.replica(SystemClock.ticker());
    CircuitBreakerConfig config = CircuitBreakerConfig.of(2, Duration.ofSeconds(30), Duration.ofSeconds(30));
    ((SharedBreaker.Admitted) a.breaker("emu/primary", config, Duration.ofSeconds(10)).tryAcquire()).permit().failure();
    ((SharedBreaker.Admitted) b.breaker("emu/primary", config, Duration.ofSeconds(10)).tryAcquire()).permit().failure();
    assertThat(eventually(Duration.ofSeconds(5), () -> a.breaker("emu/primary", config, null).state() == CircuitState.OPEN))
        .as("opened by failures summed over a and b").isTrue();

    assertThat(a.tiers().evaluates("chat")).isTrue();
    a.tiers().publish("chat", Tier.T2);
    assertThat(eventually(Duration.ofSeconds(5), () -> b.tiers().current("chat") == Tier.T2)).isTrue();
    assertThat(b.tiers().currentIfShared("chat")).isEqualTo(Tier.T2);
    // counted from here: a first connect slow enough (a loaded box) to be reported away first
    // counts its join as a switch too (CI: 3, not 2)
    long switchesBefore = a.status().switches();

    stopServer();

    assertThat(eventually(Duration.ofSeconds(5), () -> a.status().mode() == ClusterStatus.Mode.LOCAL)).isTrue();
    assertThat(eventually(Duration.ofSeconds(5), () -> b.status().mode() == ClusterStatus.Mode.LOCAL)).isTrue();
    assertThat(b.tiers().current("chat")).as("b keeps serving the cluster's last tier").isEqualTo(Tier.T2);
    // review, session 22: a scope b keeps no health of (an alias it never served) is re-evaluated by
    // nobody here: its last tier read must not hold its queued work for the whole outage
    assertThat(b.tiers().currentIfShared("chat")).as("a tier nothing here re-evaluates").isEqualTo(Tier.T0);
    assertThat(b.tiers().publish("chat", Tier.T2)).as("already posted by a").isEmpty();
    SharedBreaker.Admission during = a.breaker("emu/primary", config, null).tryAcquire();
    assertThat(during).as("a's own breaker saw one failure of two: it admits").isInstanceOf(SharedBreaker.Admitted.class);
    ((SharedBreaker.Admitted) during).permit().success();
    assertThat(a.budget("interactive", 5, 0).tryAcquire()).isTrue();

    startServer(port); // empty: state is soft

    assertThat(eventually(Duration.ofSeconds(5), () -> a.status().shared() && b.status().shared()))
        .as("both rejoin by themselves within 5 s").isTrue();
    assertThat(a.status().switches() - switchesBefore).as("away once, back once").isEqualTo(2);
    assertThat(a.breaker("emu/primary", config, null).state()).as("nothing known: CLOSED").isEqualTo(CircuitState.CLOSED);
    a.tiers().force("chat", Tier.T2, Duration.ofMinutes(1));
    assertThat(eventually(Duration.ofSeconds(5), () -> b.tiers().current("chat") == Tier.T2))
        .as("pub/sub works again after the reconnect").isTrue();
  }

  @Test
  void aRedisThatStopsAnsweringCostsEachCallAtMostTheCommandTimeoutAndSoonNothing() throws Exception {
    int port = RedisFixture.freePort();
    startServer(port);
    redis = new RedisFixture("redis://127.0.0.1:" + port);
    ClusterConfig tight = redis.config.withTimeouts(Duration.ofMillis(30), Duration.ofMillis(50));
    Cluster replica = redis.replica(tight, SystemClock.ticker(), true);
    SharedRetryBudget budget = replica.budget("interactive", 1000, 0);
    assertThat(budget.tryAcquire()).isTrue();

    Process sleeper = new ProcessBuilder("redis-cli", "-p", Integer.toString(port), "DEBUG", "SLEEP", "3")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start(); // Redis answers nobody for 3 s
    assertThat(eventually(Duration.ofSeconds(2), () -> budget.tryAcquire() && replica.status().mode() == ClusterStatus.Mode.LOCAL))
        .as("a few timed-out commands open the link's own breaker").isTrue();
    long localBefore = replica.status().localAnswers();

    for (int i = 0; i < 100; i++) {
      assertThat(budget.tryAcquire()).as("answered by the local budget").isTrue();
    }

    assertThat(sleeper.isAlive()).as("all 100 calls returned while Redis was still asleep").isTrue();
    assertThat(replica.status().mode()).isEqualTo(ClusterStatus.Mode.LOCAL);
    assertThat(replica.status().reason()).contains("TimeoutException");
    assertThat(replica.status().localAnswers() - localBefore).isEqualTo(100);
    sleeper.waitFor(10, TimeUnit.SECONDS);
    assertThat(eventually(Duration.ofSeconds(5), () -> replica.status().shared()))
        .as("rejoins by itself (its probe) once Redis answers again").isTrue();
  }

  private void startServer(int port) throws IOException, InterruptedException {
    server = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
        "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--enable-debug-command", "local")
        .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (true) {
      try (var socket = new java.net.Socket("127.0.0.1", port)) {
        return;
      } catch (IOException notYet) {
        if (System.nanoTime() - end > 0) throw notYet;
        Thread.sleep(10);
      }
    }
  }

  private void stopServer() throws InterruptedException {
    if (server != null) {
      server.destroy();
      server.waitFor(5, TimeUnit.SECONDS);
      server = null;
    }
  }
}
