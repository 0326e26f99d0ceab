package dev.levee.gateway.cluster;

import static dev.levee.gateway.cluster.ClusterBreakersBoundedRegressionTest.evictions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.ManualClock;
import dev.levee.emulator.Scenario;
import dev.levee.gateway.Gateway;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Regression (one gateway serving many tenants for weeks, {@code cluster:} on): the tier evaluator
 * published the tier of every scope, client-chosen model names' included, to the key {@code
 * tier:{feature/alias}}, which had no time to live and was set to {@code T0} rather than removed
 * when the scope recovered; and each replica kept every published or read tier in {@code
 * SharedTiers.localDecided}. The scopes themselves were dropped after 62 idle minutes, but the keys
 * and the map grew by one per name forever. Now T0 is no key, a tier below T0 lives a few leases
 * unless published again, and a replica keeps only tiers below T0 and forgets a scope it dropped.
 */
class SharedTierKeysBoundedRegressionTest {

  private static final String CONFIG = """
      models:
        ok2: { chain: [emu/claude-3-haiku] }
      tiers:
        evaluate-every: 30s
        min-volume: 2
      policy:
        retry: { max-retries: 0 }
        breaker: off
      """;

  @RegisterExtension
  final ReplicasOnRedis cluster = new ReplicasOnRedis();

  @Test
  void decidedTiersOfInventedNamesLeaveRedisAndTheReplicaOnceTheyRecover() throws Exception {
    ManualClock clock = new ManualClock();
    Replicas replicas = cluster.start(1, CONFIG, clock, 3,
        Scenario.builder().phase(Scenario.Phase.builder().model("claude-z*").status(529).build()).build());
    RedisFixture redis = cluster.redis();
    Gateway gateway = replicas.get(0);
    SharedTiers tiers = gateway.cluster().orElseThrow().tiers();
    int n = 0;
    for (int name = 0; name < 40; name++) { // 32 scopes of their own, then the shared one
      for (int i = 0; i < 3; i++) {
        assertThat(replicas.send(n++, "claude-z" + name, Map.of()).statusCode()).isEqualTo(529);
      }
    }
    clock.advance(Duration.ofSeconds(30)); // an evaluation: the failing names step down, published

    List<String> degraded = redis.keys("tier:{*");
    assertThat(degraded).as("the invented names' scopes stepped down, in Redis").hasSizeGreaterThan(10);
    assertThat(degraded).as("each below T0 with a time to live")
        .allSatisfy(key -> assertThat(redis.pttl(key)).as(key).isPositive());
    assertThat(tiers.decidedHeld()).as("the local fallback holds the tiers below T0").isEqualTo(degraded.size());

    for (int minute = 0; minute < 64; minute++) {
      clock.advance(Duration.ofMinutes(1)); // the names go quiet past a client scope's idle time (62 min)
    }
    assertThat(redis.keys("tier:{*")).as("recovered to T0: nothing left in Redis").isEmpty();
    assertThat(tiers.decidedHeld()).as("nor in the replica").isZero();

    for (int name = 0; name < 40; name++) { // new names take the idle scopes' slots
      assertThat(replicas.send(n++, "claude-new" + name, Map.of()).statusCode()).isEqualTo(200);
    }
    clock.advance(Duration.ofSeconds(30));
    assertThat(evictions(replicas.get(gateway, "/metrics").body(), "tier_scopes")).isGreaterThanOrEqualTo(32);
    assertThat(redis.keys("tier:{*")).as("healthy names write nothing").isEmpty();
    assertThat(tiers.decidedHeld()).isZero();
  }
}
