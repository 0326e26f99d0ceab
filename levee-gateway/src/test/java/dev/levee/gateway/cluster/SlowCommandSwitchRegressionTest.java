package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Newcomer trial: on a host at load ~20, with Redis answering in 0.8 ms on average and 15 ms at
 * worst, each replica switched between shared and local-only mode 17–40 times a minute: any 3
 * commands slower than the 30 ms timeout within 10 s opened the link's breaker, so a few stalls
 * made the whole replica decide alone (and admit its own half-open trials). Now a lone slow
 * command is answered locally and forgotten; only failures in a row spanning a command timeout
 * leave Redis. The link's time is a manual clock; the slowness is a proxy holding one reply.
 */
class SlowCommandSwitchRegressionTest {

  // well above a loaded box's stalls: with 30 ms, a full run beside four builds (load ~8 on 2
  // cores) timed out 24 of 60 plain pings, in rows long enough to switch
  private static final Duration TIMEOUT = Duration.ofMillis(150);

  private final RedisFixture redis = new RedisFixture();
  private final ManualClock clock = new ManualClock();
  private final FaultyRedisProxy proxy;
  private long switchesAtStart;

  SlowCommandSwitchRegressionTest() throws Exception {
    proxy = new FaultyRedisProxy();
  }

  @AfterEach
  void cleanUp() {
    redis.close();
    proxy.close();
  }

  private RedisLink link() throws InterruptedException {
    ClusterConfig config = ClusterConfig.of(proxy.uri(), redis.config.name()).withTimeouts(TIMEOUT, Duration.ofMillis(50));
    RedisLink link = redis.replica(config, clock, true).link();
    // counted from here: on a loaded box a first connect can be reported away first, and its join
    // then counts as a switch before the test begins (full run at load ~20: 1, not 0)
    switchesAtStart = link.status().switches();
    return link;
  }

  @Test
  void aFewSlowCommandsAmongFastOnesDoNotSwitchTheReplicaToLocal() throws Exception {
    RedisLink link = link();
    int slow = 0;
    for (int i = 0; i < 60; i++) {
      if (i % 15 == 7) {
        proxy.delayReplies(1, TIMEOUT.multipliedBy(2)); // one reply held longer than the timeout
      }
      if (link.call(c -> c.ping()).isEmpty()) {
        slow++;
      }
      clock.advance(Duration.ofMillis(5)); // steady traffic: a command every 5 ms
    }

    assertThat(slow).as("commands that timed out").isGreaterThanOrEqualTo(3);
    assertThat(link.status().switches() - switchesAtStart).as("switches with %d slow commands among 60 in 300 ms", slow)
        .isZero();
    assertThat(link.shared()).isTrue();
  }

  @Test
  void aRedisSlowerThanTheTimeoutForEveryCommandStillSwitchesToLocal() throws Exception {
    RedisLink link = link();
    // each reply held far longer than the 30 ms timeout: with 60 ms, a timeout timer late by 30 ms on
    // a loaded box let a reply in first (full run at load ~20: "PONG", not a timeout)
    proxy.delayReplies(1_000, Duration.ofSeconds(1));
    for (int i = 0; i < 4 && link.shared(); i++) {
      assertThat(link.call(c -> c.ping())).isEmpty();
      clock.advance(TIMEOUT); // each failed command took the whole timeout
    }

    assertThat(link.shared()).as("left Redis after failures in a row spanning a timeout").isFalse();
    assertThat(link.status().switches() - switchesAtStart).isEqualTo(1);
    assertThat(link.call(c -> c.ping())).as("answered locally at once while the guard is open").isEmpty();
  }
}
