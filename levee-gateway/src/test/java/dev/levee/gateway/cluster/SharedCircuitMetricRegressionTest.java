package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Target;
import dev.levee.gateway.Gateway;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Regression: with {@code cluster:} sharing the breakers, {@code levee_circuit_state} showed each
 * replica's own breaker, so a replica whose calls were refused by the cluster's OPEN circuit
 * reported 0 (closed). The gauge now reads the state the replica's gate enforces: the shared one
 * while Redis answers. Two gateways on the real Redis at 127.0.0.1:6379.
 */
class SharedCircuitMetricRegressionTest {

  private static final Target PRIMARY = new Target("emu", "emu-529");

  @RegisterExtension
  final ReplicasOnRedis redis = new ReplicasOnRedis();
  private Replicas cluster;

  @Test
  void aReplicaWhoseLocalBreakerIsClosedReportsTheClustersOpenCircuit() throws Exception {
    cluster = redis.start(2, """
        models:
          smart: { chain: [emu/emu-529, emu/claude-fallback] }
        policy:
          retry: { max-retries: 0 }
          breaker: { failures: 2, window: 60s, open-for: 60s }
        """);
    Gateway opener = cluster.get(0);
    Gateway other = cluster.get(1);

    for (int i = 0; i < 2; i++) { // both failures on the first replica: the circuit opens for the cluster
      assertThat(send(opener, i).statusCode()).isEqualTo(200); // answered by the fallback
    }
    assertThat(RedisFixture.eventually(Duration.ofSeconds(5),
        () -> other.chain().breakers().gate(PRIMARY).state() == CircuitState.OPEN)).isTrue();
    assertThat(other.chain().breakers().of(PRIMARY).state()).as("the other replica's own breaker saw nothing")
        .isEqualTo(CircuitState.CLOSED);

    assertThat(scrape(other)).contains("levee_circuit_state{target=\"emu/emu-529\"} 2.0");
    assertThat(scrape(opener)).contains("levee_circuit_state{target=\"emu/emu-529\"} 2.0");
  }

  private HttpResponse<String> send(Gateway replica, int n) throws Exception {
    return cluster.send(replica, n, "smart", Map.of());
  }

  private String scrape(Gateway replica) throws Exception {
    return cluster.get(replica, "/metrics").body();
  }
}
