package dev.levee.gateway.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.chain.Breakers;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.Aliases;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.tier.TierBoard;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Newcomer trial, bugs 2 and 3: with aliases {@code good} and {@code sick} in one feature that
 * queues on an outage, {@code sick}'s failures took the feature to T2 — its worst alias — and the
 * dispatcher held every queued job of the feature: a batch for {@code good} stayed {@code
 * in_progress} with {@code attempts=0} and an empty {@code last_error} while interactive {@code
 * good} requests were answered at T0. Now each job is held by the tier of its own feature and
 * alias pair (as interactive requests are), {@code sick}'s own work still waits (no retry storm at
 * a sick alias), and a held job says why it waits. Tiers on a manual clock; the claim on both
 * databases.
 */
class SickAliasHoldsOnlyItsOwnWorkRegressionTest {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private final ManualClock clock = new ManualClock();
  private final GatewayConfig config;
  private final Aliases routes;
  private final TierBoard tiers;
  private final PauseGate gate;
  private final List<QueueConfig> configs = new ArrayList<>();
  private final List<Database> open = new ArrayList<>();

  SickAliasHoldsOnlyItsOwnWorkRegressionTest() throws Exception {
    config = new ConfigLoader().parse("""
        upstreams:
          emu: { url: "http://127.0.0.1:9" }
        models:
          good: { chain: [emu/claude-sonnet-4-6] }
          sick: { chain: [emu/emu-529] }
        features:
          default: { on-outage: queue }
        """, "test.yaml");
    routes = new Aliases(config);
    tiers = new TierBoard(config, clock, clock, () -> NOW, (delay, task) -> () -> { });
    Breakers breakers = new Breakers(CircuitBreakerConfig.of(2, Duration.ofSeconds(60), Duration.ofSeconds(30)),
        clock, t -> { });
    gate = new PauseGate(routes, config.models().keySet(), breakers, tiers, List.of("default"), "default"::equals);
  }

  @AfterEach
  void close() {
    tiers.close();
    open.forEach(Database::close);
    configs.forEach(TestStores::drop);
  }

  /** 25 failed requests through {@code sick} and 25 answered ones through {@code good}, then one evaluation. */
  private void sickGoesToT2() {
    tiers.tier("default", "good", routes.resolve("good").targets());
    tiers.tier("default", "sick", routes.resolve("sick").targets());
    for (int i = 0; i < 25; i++) {
      tiers.failed("default", "sick", null);
      tiers.answered("default", "good", null);
    }
    tiers.evaluateAll();
    assertThat(tiers.currentTier("default", "sick")).isEqualTo(Tier.T2);
    assertThat(tiers.currentTier("default", "good")).isEqualTo(Tier.T0);
    assertThat(tiers.tier("default")).as("the feature's tier is its worst alias's").isEqualTo(Tier.T2);
  }

  private JobStore store(Database.Dialect dialect) {
    QueueConfig queue = TestStores.of(dialect);
    configs.add(queue);
    Database db = Database.open(queue);
    open.add(db);
    return new JobStore(db);
  }

  private static NewJob job(String alias) {
    return new NewJob("t", "default", alias, 5, null, new JobRequest("/v1/messages", null, Map.of(),
        ("{\"model\":\"" + alias + "\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}")
            .getBytes(StandardCharsets.UTF_8)), null);
  }

  @Test
  void aSickAliasHoldsItsOwnPairNotItsFeature() {
    sickGoesToT2();

    PauseGate.Paused paused = gate.paused();

    assertThat(paused.features()).isEmpty();
    assertThat(paused.scopes()).containsExactly(new PauseGate.Scope("default", "sick"));
    assertThat(paused.why("default", "good")).isEmpty();
    assertThat(paused.why("default", "sick")).hasValueSatisfying(why -> assertThat(why)
        .startsWith("held: alias sick of feature default is at T2 (last evaluation: ")
        .contains("burn"));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void theDispatcherClaimsTheHealthyAliasesJobsAndLeavesTheSickOnesQueued(Database.Dialect dialect) {
    sickGoesToT2();
    JobStore store = store(dialect);
    String good = store.enqueue(job("good"), NOW, NOW.plus(Duration.ofHours(24)));
    String sick = store.enqueue(job("sick"), NOW.minusSeconds(1), NOW.plus(Duration.ofHours(24))); // older: first in line
    PauseGate.Paused paused = gate.paused();

    List<Job> claimed = store.claim(10, NOW, NOW.plus(Duration.ofMinutes(15)), paused.aliases(), paused.features(),
        paused.scopes());

    assertThat(claimed).extracting(Job::id).containsExactly(good);
    Job held = store.job("t", sick).orElseThrow();
    assertThat(held.state()).isEqualTo(JobState.QUEUED);
    assertThat(JobsHandler.waitingReason(held, paused, NOW)).startsWith("held: alias sick of feature default is at T2");
  }

  @Test
  void everyHoldThatAppliesIsNamed() {
    PauseGate.Paused paused = new PauseGate.Paused(java.util.Set.of("sick"), java.util.Set.of(),
        java.util.Set.of(new PauseGate.Scope("default", "sick")),
        Map.of("alias\u0000sick", "held: no target of alias sick can answer now (emu/emu-529: circuit open, 5 s left)"));

    assertThat(paused.why("default", "sick")).hasValue("held: no target of alias sick can answer now "
        + "(emu/emu-529: circuit open, 5 s left); held: alias sick of feature default is degraded");
  }

  @Test
  void aFeatureForcedDownStillHoldsEveryAlias() {
    tiers.force("default", Tier.T2, Duration.ofMinutes(5));

    PauseGate.Paused paused = gate.paused();

    assertThat(paused.features()).containsExactly("default");
    assertThat(paused.why("default", "good")).hasValueSatisfying(why -> assertThat(why)
        .startsWith("held: feature default is forced to T2"));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aQueuedJobSaysWhyItWaits(Database.Dialect dialect) {
    JobStore store = store(dialect);
    String id = store.enqueue(job("good"), NOW, NOW.plus(Duration.ofHours(24)));
    Job ready = store.job("t", id).orElseThrow();
    assertThat(JobsHandler.waitingReason(ready, PauseGate.Paused.NONE, NOW)).isEqualTo("ready: waiting for a worker");

    Job claimed = store.claim(1, NOW, NOW.plus(Duration.ofMinutes(15)), java.util.Set.of(), java.util.Set.of()).getFirst();
    assertThat(JobsHandler.waitingReason(store.job("t", id).orElseThrow(), PauseGate.Paused.NONE, NOW))
        .as("running: not waiting").isNull();
    store.retryLater(claimed, "circuit half-open, trial in flight", NOW.plusSeconds(5), NOW);

    Job retried = store.job("t", id).orElseThrow();
    assertThat(JobsHandler.waitingReason(retried, PauseGate.Paused.NONE, NOW))
        .startsWith("waiting to be tried again at 2026-01-01T00:00:05Z");
    PauseGate.Paused heldByBreakers = new PauseGate.Paused(java.util.Set.of("good"), java.util.Set.of());
    assertThat(JobsHandler.waitingReason(retried, heldByBreakers, NOW))
        .as("the hold, not the stale last_error").startsWith("held: no target of alias good can answer now");
  }
}
