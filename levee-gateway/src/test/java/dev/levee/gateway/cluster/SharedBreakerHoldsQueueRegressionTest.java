package dev.levee.gateway.cluster;

import static dev.levee.gateway.cluster.RedisFixture.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Permit;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.gateway.cluster.GatedReplicas.Replica;
import dev.levee.gateway.jobs.PauseGate;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two replicas on the real Redis, each with its own breakers shared through the cluster (as {@code
 * Gateway} wires them) and its own queue {@link PauseGate}. The gate read each replica's local
 * breakers: replica B, whose own breaker of {@code emu/claude-x} had seen no failure, kept draining
 * its queued {@code smart} jobs into a target replica A's failures had opened for the whole
 * cluster — every one refused by the shared breaker the request path reads, and retried later. Now
 * the gate reads the breaker the request path reads ({@code Breakers.gate}): B holds the work while
 * the shared circuit is open or its one trial is in flight on A.
 */
class SharedBreakerHoldsQueueRegressionTest {

  private static final Duration TRIAL_LEASE = Duration.ofSeconds(10);
  private static final Target TARGET = GatedReplicas.TARGET;

  private final GatedReplicas replicas;

  SharedBreakerHoldsQueueRegressionTest() throws Exception {
    replicas = new GatedReplicas();
  }

  @AfterEach
  void cleanUp() {
    replicas.close();
  }

  private Replica replica(CircuitBreakerConfig breakerConfig) throws InterruptedException {
    return replicas.replica(breakerConfig, TRIAL_LEASE);
  }

  private static Permit admit(Replica replica) {
    return ((CircuitBreaker.Admitted) replica.breakers().gate(TARGET).tryAcquire()).permit();
  }

  @Test
  void aReplicaWhoseOwnBreakerIsClosedHoldsItsQueueWhileTheSharedCircuitIsOpen() throws Exception {
    CircuitBreakerConfig breakerConfig = CircuitBreakerConfig.of(2, Duration.ofSeconds(30), Duration.ofSeconds(60));
    Replica a = replica(breakerConfig);
    Replica b = replica(breakerConfig);
    admit(a).failure();
    admit(b).failure(); // two failures across the cluster: the shared circuit opens

    assertThat(eventually(Duration.ofSeconds(5), () -> b.gate().paused().aliases().contains("smart")))
        .as("B holds smart's work while the shared circuit is open").isTrue();
    assertThat(b.breakers().of(TARGET).state()).as("B's own breaker saw one failure of two").isEqualTo(CircuitState.CLOSED);
    assertThat(b.gate().paused().why("default", "smart")).hasValueSatisfying(why -> assertThat(why)
        .startsWith("held: no target of alias smart can answer now (emu/claude-x: circuit open, "));
    assertThat(b.breakers().gate(TARGET).tryAcquire()).as("what B's request path is told")
        .isInstanceOf(CircuitBreaker.Rejected.class);
  }

  @Test
  void whileATrialRunsOnOneReplicaTheOtherHoldsItsQueueAndResumesWhenTheTrialClosesTheCircuit() throws Exception {
    CircuitBreakerConfig breakerConfig = CircuitBreakerConfig.of(1, Duration.ofSeconds(30), Duration.ofMillis(300))
        .withCloseAfter(1);
    Replica a = replica(breakerConfig);
    Replica b = replica(breakerConfig);
    admit(a).failure(); // opens for the cluster for 300 ms
    assertThat(eventually(Duration.ofSeconds(5), () -> b.gate().paused().trialAliases().contains("smart")))
        .as("the open period over: one job of B may be the trial").isTrue();

    Permit trial = admit(a);

    assertThat(eventually(Duration.ofSeconds(5), () -> b.gate().paused().aliases().contains("smart")))
        .as("A's trial is in flight: B holds smart's work").isTrue();
    assertThat(b.gate().paused().why("default", "smart")).hasValueSatisfying(why -> assertThat(why)
        .contains("emu/claude-x: circuit half-open, trial in flight"));
    assertThat(b.breakers().of(TARGET).awaitingTrial()).as("B's own breaker knows of no trial").isFalse();

    trial.success();

    assertThat(eventually(Duration.ofSeconds(5), () -> b.gate().paused().equals(PauseGate.Paused.NONE)))
        .as("the trial closed the shared circuit: B drains again").isTrue();
  }
}
