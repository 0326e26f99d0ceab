package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.ManualClock;
import dev.levee.emulator.Scenario;
import dev.levee.gateway.Gateway;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Regression ({@code cluster:} on): each replica keeps the cooldowns it learns in its own table
 * ({@code SharedCooldowns.localUntil}), and an ended cooldown left it only when its target was asked
 * about again: by a request to it, or by the queue's pause gate, which reads the targets whose
 * breakers the gateway holds. A target a client named once and never again, whose {@code
 * retry-after} outlasted its breaker's idle time (10 min), kept its entry for the life of the
 * process: one per such name. Now a new cooldown sweeps the ended ones (at most once a minute).
 */
class SharedCooldownsSweptRegressionTest {

  private static final String CONFIG = """
      models:
        smart: { chain: [emu/emu-ok] }
      policy:
        retry: { max-retries: 0 }
        breaker: off
      """;

  @RegisterExtension
  final ReplicasOnRedis cluster = new ReplicasOnRedis();

  @Test
  void endedCooldownsOfNamesNeverSeenAgainLeaveTheTable() throws Exception {
    ManualClock clock = new ManualClock();
    Replicas replicas = cluster.start(1, CONFIG, clock, 3, Scenario.builder().phase(Scenario.Phase.builder()
        .model("claude-r*").status(429).retryAfter(Duration.ofMinutes(15)).build()).build());
    Gateway gateway = replicas.get(0);
    SharedCooldowns cooldowns = gateway.cluster().orElseThrow().cooldowns();
    for (int i = 0; i < 50; i++) {
      assertThat(replicas.send(i, "claude-r" + i, Map.of()).statusCode()).isEqualTo(429);
    }
    assertThat(cooldowns.localCount()).as("each cools for its retry-after").isEqualTo(50);

    clock.advance(Duration.ofMinutes(16)); // every cooldown over, every breaker evicted; none of the names returns
    assertThat(replicas.send(50, "claude-r-late", Map.of()).statusCode()).isEqualTo(429);

    assertThat(cooldowns.localCount()).as("the ended ones swept; the new one kept").isEqualTo(1);
    assertThat(cooldowns.remaining("emu/claude-r-late")).isPositive();
  }
}
