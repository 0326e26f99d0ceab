package dev.levee.gateway.cluster;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.Aliases;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.jobs.PauseGate;
import dev.levee.gateway.tier.TierBoard;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Replicas of one cluster on the real Redis (a {@link RedisFixture}) as their queues see it: each
 * its own breakers of {@link #TARGET}, shared through its own cluster link as {@code Gateway} wires
 * them, on the system's ticker, and its own queue {@link PauseGate} over them for alias {@code
 * smart} ({@code [emu/claude-x]}, feature {@code default}); the gate's tier board on a manual clock
 * nobody advances. Close it after whatever uses the replicas.
 */
final class GatedReplicas implements AutoCloseable {

  static final Target TARGET = new Target("emu", "claude-x");

  /** One replica: its breakers shared through its own cluster link, and the queue's gate over them. */
  record Replica(Breakers breakers, PauseGate gate) {}

  private final RedisFixture redis = new RedisFixture();
  private final GatewayConfig config;
  private final Aliases routes;
  private final List<TierBoard> boards = new ArrayList<>();

  GatedReplicas() throws Exception {
    config = new ConfigLoader().parse("""
        upstreams:
          emu: { url: "http://127.0.0.1:9" }
        models:
          smart: { chain: [emu/claude-x] }
        """, "test.yaml");
    routes = new Aliases(config);
  }

  /** A new replica whose breakers follow {@code breakerConfig}, a shared trial leased for {@code trialLease}. */
  Replica replica(CircuitBreakerConfig breakerConfig, Duration trialLease) throws InterruptedException {
    Cluster cluster = redis.replica(SystemClock.ticker());
    Breakers breakers = new Breakers(breakerConfig, SystemClock.ticker(), t -> { }, List.of(TARGET));
    breakers.shareThrough(cluster.gates(trialLease));
    ManualClock clock = new ManualClock();
    TierBoard tiers = new TierBoard(config, clock, clock, () -> Instant.EPOCH, (delay, task) -> () -> { });
    boards.add(tiers);
    return new Replica(breakers, new PauseGate(routes, config.models().keySet(), breakers, tiers, List.of("default")));
  }

  @Override
  public void close() {
    boards.forEach(TierBoard::close);
    redis.close();
  }
}
