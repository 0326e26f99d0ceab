package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Gate;
import dev.levee.core.breaker.Permit;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.gateway.Gateway;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A shared circuit closed by one replica's trial starts the target's SLI window afresh on every
 * replica, as a local breaker's close does on its own replica. Before, each replica's tier board
 * listened to its own local breaker only: a close decided in Redis (HALF_OPEN to CLOSED on another
 * replica) never reached it, the outage's failures stayed in its window, and a backlog drained
 * there could lift them over the minimum volume and step a healthy target's aliases down.
 *
 * <p>Two gateways on the real Redis at 127.0.0.1:6379; the test drives the shared breaker through
 * the gateways' own gates, so what it checks is the gateway's wiring too.
 */
class SharedCloseStartsEveryReplicasWindowAfreshRegressionTest {

  private static final Target PRIMARY = new Target("emu", "emu-529");
  private static final Failure OVERLOADED = Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "busy");

  private final RedisFixture redis = new RedisFixture();
  private Replicas cluster;

  @AfterEach
  void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    redis.close();
  }

  @Test
  void aCloseDecidedByAnotherReplicasTrialClearsThisReplicasWindowOfTheTarget() throws Exception {
    cluster = new Replicas(2, """
        models:
          smart: { chain: [emu/emu-529, emu/claude-fallback] }
        policy:
          retry: { max-retries: 0 }
          breaker: { failures: 1, window: 60s, open-for: 300ms, close-after: 1 }
        """, RedisFixture.REDIS, redis.config.name());
    Gateway closer = cluster.gateways.get(0);
    Gateway bystander = cluster.gateways.get(1);
    Gate bystanderGate = bystander.chain().breakers().gate(PRIMARY); // the bystander has used the target
    for (int i = 0; i < 30; i++) { // its window remembers the outage
      bystander.tiers().onFailure(PRIMARY, OVERLOADED, Duration.ofMillis(30));
    }
    assertThat(bystander.tiers().targetCalls(PRIMARY).serverErrors()).isEqualTo(30);

    Gate gate = closer.chain().breakers().gate(PRIMARY);
    admitted(gate).failure(); // opens the circuit for the cluster
    assertThat(RedisFixture.eventually(Duration.ofSeconds(5), () -> gate.state() == CircuitState.HALF_OPEN
        && bystanderGate.state() == CircuitState.HALF_OPEN)).as("the open period (300 ms) ends").isTrue();
    Permit trial = admitted(gate);
    assertThat(trial.trial()).isTrue();
    trial.success(); // close-after 1: closed in Redis by the closer's trial

    assertThat(RedisFixture.eventually(Duration.ofSeconds(5), () -> bystanderGate.state() == CircuitState.CLOSED))
        .as("the bystander sees the shared circuit closed").isTrue();
    assertThat(RedisFixture.eventually(Duration.ofSeconds(5),
        () -> bystander.tiers().targetCalls(PRIMARY).serverErrors() == 0))
        .as("the bystander's window of the target starts afresh: the outage's failures are over").isTrue();
  }

  private static Permit admitted(Gate gate) {
    CircuitBreaker.Verdict verdict = gate.tryAcquire();
    assertThat(verdict).isInstanceOf(CircuitBreaker.Admitted.class);
    return ((CircuitBreaker.Admitted) verdict).permit();
  }
}
