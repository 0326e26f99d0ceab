package dev.levee.gateway.jobs;

import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.Aliases;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.tier.TierBoard;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;

/**
 * A queue on a fresh SQLite store whose aliases all go to one target, {@link #TARGET}, and the
 * queue's {@link PauseGate} over it. The target's breaker (opens on 1 failure in 60 s for 30 s,
 * closes after 1 successful trial) and the tier board run on {@link #clock}; the jobs' own times
 * are the system's. Close it after the workers.
 */
final class OneTargetQueue implements AutoCloseable {

  static final Target TARGET = new Target("emu", "claude-x");

  final ManualClock clock = new ManualClock();
  final QueueConfig config = TestStores.sqlite();
  private final Database db = Database.open(config);
  final JobStore store = new JobStore(db);
  private final TierBoard tiers;
  final Breakers breakers = new Breakers(
      CircuitBreakerConfig.of(1, Duration.ofSeconds(60), Duration.ofSeconds(30)).withCloseAfter(1), clock, t -> { },
      List.of(TARGET));
  final PauseGate gate;

  /** A queue for {@code aliases}, each {@code { chain: [emu/claude-x] }}, of feature {@code default}. */
  OneTargetQueue(String... aliases) throws Exception {
    StringBuilder yaml = new StringBuilder("""
        upstreams:
          emu: { url: "http://127.0.0.1:9" }
        models:
        """);
    for (String alias : aliases) {
      yaml.append("  ").append(alias).append(": { chain: [emu/claude-x] }\n");
    }
    GatewayConfig gateway = new ConfigLoader().parse(yaml.toString(), "test.yaml");
    tiers = new TierBoard(gateway, clock, clock, () -> Instant.EPOCH, (delay, task) -> () -> { });
    gate = new PauseGate(new Aliases(gateway), gateway.models().keySet(), breakers, tiers, List.of("default"));
  }

  /** Queues a job for {@code alias} (feature {@code default}, tenant {@code t}), due within the hour. */
  void enqueue(String alias) {
    JobRequest request = new JobRequest("/v1/messages", null, Map.of(),
        ("{\"model\":\"" + alias + "\",\"max_tokens\":5,\"messages\":[]}").getBytes(StandardCharsets.UTF_8));
    Instant now = InstantSource.system().instant();
    store.enqueue(new NewJob("t", "default", alias, 5, null, request, null), now, now.plusSeconds(3600));
  }

  @Override
  public void close() {
    tiers.close();
    db.close();
    TestStores.drop(config);
  }
}
