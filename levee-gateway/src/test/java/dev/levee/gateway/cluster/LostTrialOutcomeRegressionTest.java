package dev.levee.gateway.cluster;

import static dev.levee.gateway.cluster.RedisFixture.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.CircuitState;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Newcomer trial: replica A's half-open trial succeeded while A's link to Redis flapped, and the
 * outcome was never written: Redis kept {@code state H, succ 0} with the trial's lease 30 s ahead,
 * so every replica kept the circuit HALF_OPEN for the whole lease and sent its requests to the
 * fallback while the primary was healthy. Now the outcome is written once the link answers.
 */
class LostTrialOutcomeRegressionTest {

  private static final Duration TRIAL_LEASE = Duration.ofSeconds(30);
  private static final CircuitBreakerConfig ONE_FAILURE_OPENS =
      CircuitBreakerConfig.of(1, Duration.ofSeconds(30), Duration.ofMillis(1)).withCloseAfter(1);

  private final RedisFixture redis = new RedisFixture();
  private final FaultyRedisProxy proxy;

  LostTrialOutcomeRegressionTest() throws Exception {
    proxy = new FaultyRedisProxy();
  }

  @AfterEach
  void cleanUp() {
    redis.close();
    proxy.close();
  }

  @Test
  void aTrialThatSucceedsWhileTheLinkIsAwayClosesTheCircuitForEveryReplicaWhenItReturns() throws Exception {
    SharedBreaker a = redis.replicaThrough(proxy, SystemClock.ticker()).breaker("emu/primary", ONE_FAILURE_OPENS, TRIAL_LEASE);
    SharedBreaker b = redis.replica(SystemClock.ticker()).breaker("emu/primary", ONE_FAILURE_OPENS, TRIAL_LEASE);

    ((SharedBreaker.Admitted) a.tryAcquire()).permit().failure(); // opens the shared circuit for 1 ms
    SharedPermit[] trial = new SharedPermit[1];
    assertThat(eventually(Duration.ofSeconds(5), () -> a.tryAcquire() instanceof SharedBreaker.Admitted(SharedPermit p)
        && (trial[0] = p).trial())).as("A holds the cluster's trial").isTrue();
    assertThat(trial[0].shared()).isTrue();
    assertThat(eventually(Duration.ofSeconds(5), () -> b.state() == CircuitState.HALF_OPEN)).isTrue();

    proxy.cut(); // A's link drops while its trial runs
    trial[0].success(); // the primary answered; Redis cannot be told now
    assertThat(a.trialOutcomePending()).isTrue();
    assertThat(b.state()).as("the shared state did not hear it").isEqualTo(CircuitState.HALF_OPEN);

    proxy.restore(); // the link reconnects within ~250 ms

    assertThat(eventually(Duration.ofSeconds(5), () -> b.state() == CircuitState.CLOSED))
        .as("closed for every replica well before the %s trial lease ends", TRIAL_LEASE).isTrue();
    // A writes the outcome, then clears its flag: B can see CLOSED a moment before (full suite, session 11)
    assertThat(eventually(Duration.ofSeconds(5), () -> !a.trialOutcomePending())).as("A's outcome written").isTrue();
    assertThat(b.tryAcquire()).isInstanceOf(SharedBreaker.Admitted.class);
  }
}
