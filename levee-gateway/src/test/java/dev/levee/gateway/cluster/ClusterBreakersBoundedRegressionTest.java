package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.Gateway;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Regression (one gateway serving many tenants for weeks, {@code cluster:} on): every model name a
 * client invented got a shared breaker in {@code Cluster.breakers} and a gate in the map behind
 * {@code Cluster.gates}, kept for the life of the process, while the gateway's own {@link Breakers}
 * table evicted its entry after 10 idle minutes: 200 invented names, 200 shared breakers held
 * forever. Now the shared breaker is made for, kept with and evicted with the local breaker in the
 * bounded table; the cluster keeps no table of its own.
 */
class ClusterBreakersBoundedRegressionTest {

  private static final String CONFIG = """
      models:
        smart: { chain: [emu/emu-ok] }
      policy:
        retry: { max-retries: 0 }
        breaker: { failures: 3, window: 60s, open-for: 30s }
      """;

  @RegisterExtension
  final ReplicasOnRedis cluster = new ReplicasOnRedis();

  @Test
  void sharedBreakersOfInventedNamesAreEvictedWithTheirLocalBreakers() throws Exception {
    ManualClock clock = new ManualClock();
    Replicas replicas = cluster.start(1, CONFIG, clock, 5, null);
    Gateway gateway = replicas.get(0);
    Breakers breakers = gateway.chain().breakers();
    for (int i = 0; i < 200; i++) {
      assertThat(replicas.send(i, "claude-invented-" + i, Map.of()).statusCode()).isEqualTo(200);
    }
    assertThat(breakers.gates()).as("each invented name has its shared circuit while in use").hasSizeGreaterThan(200)
        .allSatisfy((target, gate) -> assertThat(gate).isInstanceOf(SharedGate.class));

    clock.advance(breakers.idleFor().plusMinutes(1)); // every invented name idle past its breaker's idle time
    assertThat(replicas.send(0, "smart", Map.of()).statusCode()).isEqualTo(200);

    assertThat(breakers.circuits().keySet()).extracting(Target::id).as("configured targets only")
        .containsExactly("emu/emu-ok");
    assertThat(gateway.cluster().orElseThrow().namedBreakers())
        .as("the cluster keeps no shared breaker of a name the table evicted").isZero();
    assertThat(evictions(replicas.get(gateway, "/metrics").body(), "breakers")).isGreaterThanOrEqualTo(200);
  }

  /** {@code levee_state_evictions_total{table=…}} in a scrape. */
  static double evictions(String metrics, String table) {
    Matcher m = Pattern.compile("levee_state_evictions_total\\{table=\"" + table + "\"} (\\S+)").matcher(metrics);
    assertThat(m.find()).as(metrics).isTrue();
    return Double.parseDouble(m.group(1));
  }
}
