package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.Scenario;
import dev.levee.gateway.Gateway;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Regression ({@code cluster:} on): a client-named target's breaker was evicted after 10 idle
 * minutes, and when the name came back the table made a new local breaker, but the cluster's gate
 * map still held the first shared breaker, wrapped around the evicted local one. Every outcome went
 * to that orphan: the breaker {@code /health} showed (and the one that decides while Redis is away)
 * never counted a failure again. Now the name gets a new shared breaker around its new local one;
 * the shared state in Redis is the truth, so nothing the cluster counted is lost.
 */
class ReturningNameRebindsSharedBreakerRegressionTest {

  private static final String CONFIG = """
      models:
        smart: { chain: [emu/emu-ok] }
      policy:
        retry: { max-retries: 0 }
        breaker: { failures: 3, window: 60s, open-for: 30s }
      """;
  private static final Target BACK = new Target("emu", "claude-z-back");

  @RegisterExtension
  final ReplicasOnRedis cluster = new ReplicasOnRedis();

  @Test
  void aNameBackAfterEvictionIsSharedAroundItsNewBreakerAndKeepsTheClustersCount() throws Exception {
    ManualClock clock = new ManualClock();
    Replicas replicas = cluster.start(1, CONFIG, clock, 5,
        Scenario.builder().phase(Scenario.Phase.builder().model("claude-z*").status(529).build()).build());
    Gateway gateway = replicas.get(0);
    Breakers breakers = gateway.chain().breakers();
    assertThat(replicas.send(0, BACK.model(), Map.of()).statusCode()).isEqualTo(529); // one failure, shared
    assertThat(breakers.of(BACK).snapshot().recentFailures()).isEqualTo(1);

    clock.advance(breakers.idleFor().plusMinutes(1)); // Redis's own clock has not moved: its count stands
    assertThat(replicas.send(1, "smart", Map.of()).statusCode()).isEqualTo(200);
    assertThat(breakers.circuits()).as("evicted").doesNotContainKey(BACK);

    assertThat(replicas.send(2, BACK.model(), Map.of()).statusCode()).isEqualTo(529); // the name comes back
    assertThat(breakers.of(BACK).snapshot().recentFailures())
        .as("the table's new breaker hears the outcome (the gate is bound to it, not to the evicted one)")
        .isEqualTo(1);

    assertThat(replicas.send(3, BACK.model(), Map.of()).statusCode()).isEqualTo(529); // third failure in Redis
    assertThat(breakers.gate(BACK).state())
        .as("the cluster counted the failure from before the eviction: 3 in its window open the circuit")
        .isEqualTo(CircuitState.OPEN);
    assertThat(breakers.of(BACK).state()).as("the new local breaker saw 2 of them").isEqualTo(CircuitState.CLOSED);
    assertThat(replicas.send(4, BACK.model(), Map.of()).statusCode()).as("refused by the shared circuit")
        .isEqualTo(503);
    assertThat(replicas.emulator.log().stream().filter(e -> BACK.model().equals(e.model())).count())
        .as("the open circuit let no call through").isEqualTo(3);
  }
}
