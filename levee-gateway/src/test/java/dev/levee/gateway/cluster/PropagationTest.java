package dev.levee.gateway.cluster;

import static dev.levee.gateway.cluster.RedisFixture.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.time.ManualClock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Events reach the other replicas through pub/sub, not by waiting out the local copy: the
 * replicas' clocks are frozen, so a local copy never expires by itself. (The propagation time is
 * measured, not asserted, by {@code dev.levee.bench.ClusterCost}.)
 */
class PropagationTest {

  @AutoClose
  private final RedisFixture redis = new RedisFixture();
  private final ManualClock frozen = new ManualClock();

  @Test
  void aBreakerOpenedOnOneReplicaIsSeenByTheOthersThroughTheInvalidation() throws Exception {
    CircuitBreakerConfig config = CircuitBreakerConfig.of(1, Duration.ofSeconds(30), Duration.ofSeconds(30));
    SharedBreaker a = redis.replica(frozen).breaker("emu/primary", config, Duration.ofSeconds(10));
    SharedBreaker b = redis.replica(frozen).breaker("emu/primary", config, Duration.ofSeconds(10));
    assertThat(b.state()).isEqualTo(CircuitState.CLOSED); // b now holds a copy that never expires

    ((SharedBreaker.Admitted) a.tryAcquire()).permit().failure();

    assertThat(eventually(Duration.ofSeconds(5), () -> b.state() == CircuitState.OPEN)).isTrue();
  }

  @Test
  void aCooldownStartedOnOneReplicaIsSeenByTheOthersThroughTheInvalidation() throws Exception {
    SharedCooldowns a = redis.replica(frozen).cooldowns();
    SharedCooldowns b = redis.replica(frozen).cooldowns();
    assertThat(b.remaining("emu/primary")).isZero();

    a.coolDown("emu/primary", Duration.ofSeconds(20));

    assertThat(eventually(Duration.ofSeconds(5), () -> b.remaining("emu/primary").isPositive())).isTrue();
  }

  @Test
  void theModeIsOnMetrics() throws Exception {
    Cluster replica = redis.replica(frozen);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    replica.link().bindTo(registry);

    assertThat(registry.scrape())
        .contains("levee_cluster_shared{cluster=\"" + redis.config.name() + "\"} 1.0")
        .contains("levee_cluster_switches_total")
        .contains("levee_cluster_local_answers_total");
    assertThat(replica.status()).satisfies(s -> {
      assertThat(s.shared()).isTrue();
      assertThat(s.redis()).isEqualTo("127.0.0.1:6379");
      assertThat(s.reason()).isEmpty();
    });
  }
}
