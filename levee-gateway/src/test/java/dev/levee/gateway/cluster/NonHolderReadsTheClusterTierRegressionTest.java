package dev.levee.gateway.cluster;

import static dev.levee.gateway.tier.TestBoards.OVERLOADED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.chain.Breakers;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.Aliases;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.jobs.PauseGate;
import dev.levee.gateway.tier.TierBoard;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Review of the replica tier reads (two replicas, one Redis): on the replica that does not hold a
 * feature's tier lease, the request path served the published tier, but three reads still used the
 * replica's own state.
 *
 * <ul>
 *   <li>{@link TierBoard#degraded()} — what the queue's {@link PauseGate} holds work by — listed only
 *       pairs the replica had a scope of: its workers claimed and ran queued work of an alias it never
 *       served while the cluster held that alias at T2;
 *   <li>{@link TierBoard#currentTier} ({@code levee_tier_alias}) gave T0 for such an alias, and
 *       {@link TierBoard#tier(String)} ({@code levee_tier}) left it out;
 *   <li>{@link TierBoard#cause} (the access record's {@code tier_cause}, a held job's reason) read the
 *       replica's own last transition: none, or a stale one from when it held the lease; and {@code
 *       /admin/tiers} left the cause out of such a replica's alias rows.
 * </ul>
 *
 * Now each reads the tier in force on the cluster, and the cause its lease holder published.
 * Evaluations are driven by hand on a {@link ManualClock}.
 */
class NonHolderReadsTheClusterTierRegressionTest {

  private static final String YAML = """
      upstreams:
        anthropic: { url: "https://api.anthropic.com" }
      models:
        smart: { chain: [anthropic/claude-sick] }
        fast: { chain: [anthropic/claude-small] }
      features:
        default: { on-outage: queue }
      """;
  private static final Target SICK = Target.parse("anthropic/claude-sick");
  private static final Target SMALL = Target.parse("anthropic/claude-small");

  @AutoClose
  private final RedisFixture redis = new RedisFixture();
  private final ManualClock clock = new ManualClock();

  /** {@code board}'s clients of {@code smart} fail for 3 s; then it evaluates (taking the lease if free). */
  private void smartFailsOn(TierBoard board) {
    for (int i = 0; i < 30; i++) {
      board.tier("default", "smart", List.of(SICK));
      board.onFailure(SICK, OVERLOADED, Duration.ofMillis(30));
      board.failed("default", "smart", Duration.ofMillis(70));
      clock.advance(Duration.ofMillis(100));
    }
    board.evaluateAll();
  }

  /** Whether {@code read} gives {@code expected} once pub/sub and the view TTL (virtual time) let it. */
  private boolean eventually(Supplier<Object> read, Object expected) throws InterruptedException {
    return RedisFixture.eventually(Duration.ofSeconds(2), () -> {
      clock.advance(Duration.ofMillis(60));
      return expected.equals(read.get());
    });
  }

  /** The queue's gate of {@code board}, as the gateway wires it (local breakers: all closed). */
  private static PauseGate gate(TierBoard board) throws Exception {
    GatewayConfig config = new ConfigLoader().parse(YAML, "test.yaml");
    Breakers breakers = new Breakers(CircuitBreakerConfig.of(2, Duration.ofSeconds(60), Duration.ofSeconds(30)),
        new ManualClock(), t -> { });
    return new PauseGate(new Aliases(config), config.models().keySet(), breakers, board, List.of("default"),
        "default"::equals);
  }

  /** {@code alias}'s row of feature {@code default} in {@code board}'s {@code /admin/tiers}. */
  private static com.fasterxml.jackson.databind.JsonNode aliasRow(TierBoard board, String alias) {
    for (var feature : board.status()) {
      if (feature.path("feature").asText().equals("default")) {
        for (var row : feature.path("aliases")) {
          if (row.path("alias").asText().equals(alias)) {
            return row;
          }
        }
      }
    }
    throw new AssertionError("no row of " + alias + " in " + board.status());
  }

  @Test
  void aReplicaThatNeverServedTheAliasHoldsItsQueuedWorkAndReportsTheClusterTier() throws Exception {
    try (TierBoard a = redis.board(YAML, clock); TierBoard b = redis.board(YAML, clock)) {
      a.tier("default", "fast", List.of(SMALL));
      a.evaluateAll(); // a holds default's lease
      b.tier("default", "fast", List.of(SMALL)); // b serves fast, never smart
      b.evaluateAll();
      smartFailsOn(a);
      assertThat(redis.get("tier:{default/smart}")).isEqualTo("T2");
      String cause = a.cause("default", "smart");
      assertThat(cause).as("the holder's own cause").contains("alias smart").contains("T2");

      PauseGate onB = gate(b);
      assertThat(eventually(() -> onB.paused().scopes(), java.util.Set.of(new PauseGate.Scope("default", "smart"))))
          .as("b's workers hold smart's queued work: " + onB.paused()).isTrue();
      assertThat(onB.paused().why("default", "smart")).hasValueSatisfying(why -> assertThat(why)
          .startsWith("held: alias smart of feature default is at T2").contains("stepped down: " + cause));
      assertThat(b.degraded()).extracting(TierBoard.Degraded::alias).containsExactly("smart");
      assertThat(b.currentTier("default", "smart")).as("levee_tier_alias").isEqualTo(Tier.T2);
      assertThat(b.tier("default")).as("levee_tier").isEqualTo(Tier.T2);
      assertThat(b.cause("default", "smart")).as("tier_cause on b").isEqualTo(cause);
      assertThat(b.currentTier("default", "fast")).isEqualTo(Tier.T0);
      assertThat(aliasRow(b, "smart").path("cause").asText(null)).as("/admin/tiers on b").isEqualTo(cause);
    }
  }

  @Test
  void theCauseIsTheHoldersNotAStaleOneFromThisReplicasOwnTurn() throws Exception {
    try (TierBoard a = redis.board(YAML, clock); TierBoard b = redis.board(YAML, clock)) {
      smartFailsOn(b); // b holds the lease and steps smart down to T2
      String stale = b.cause("default", "smart");
      assertThat(stale).contains("T2");
      redis.delete("tier-lease:{default}"); // b stalls: its lease runs out
      a.tier("default", "smart", List.of(SICK));
      a.evaluateAll(); // a takes over from the published T2; no traffic: it steps up after healthy-for
      for (int i = 0; i < 7 && !"T1".equals(redis.get("tier:{default/smart}")); i++) {
        clock.advance(Duration.ofSeconds(5));
        a.evaluateAll();
        b.evaluateAll(); // the lease is a's: b evaluates nothing
      }
      assertThat(redis.get("tier:{default/smart}")).isEqualTo("T1");
      String cause = a.cause("default", "smart");
      assertThat(cause).as("a's step up").contains("T2 -> T1");

      assertThat(eventually(() -> b.currentTier("default", "smart"), Tier.T1)).isTrue();
      assertThat(b.cause("default", "smart")).as("the holder's cause, not b's own " + stale).isEqualTo(cause);
      assertThat(b.degraded()).singleElement().satisfies(d -> {
        assertThat(d.tier()).isEqualTo(Tier.T1);
        assertThat(d.cause()).isEqualTo(cause);
        assertThat(d.reason()).as("b's own last evaluation is not what is in force").isNull();
      });
      assertThat(aliasRow(b, "smart").path("cause").asText(null)).as("/admin/tiers on b").isEqualTo(cause);
    }
  }
}
