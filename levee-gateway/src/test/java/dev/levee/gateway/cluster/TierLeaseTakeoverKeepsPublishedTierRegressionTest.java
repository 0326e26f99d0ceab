package dev.levee.gateway.cluster;

import static dev.levee.gateway.tier.TestBoards.OVERLOADED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.tier.TierBoard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Tester's report (two replicas, one Redis, severity high): replica A held the tier lease, stepped
 * {@code default/smart} T0 -> T2 and published it; A was killed ({@code kill -9}) while the outage
 * went on; ~10 s later B took the lease, evaluated from its own local state (T0, its windows
 * reading the primary it never called at T2), published T0 — deleting the T2 key — and both
 * replicas served T0 with the circuit still open; no replica logged a transition. After a heal the
 * same takeover jumped T2 -> T0 in one step.
 *
 * <p>A replica that takes over the lease starts from the tier the cluster published and steps from
 * there by the usual rules, each step a logged transition. A crash is A no longer renewing, its
 * lease run out (the key deleted: Redis's PX in virtual time); B's evaluations are driven by hand
 * on a {@link ManualClock}, every {@code tiers.evaluate-every} (5 s).
 */
class TierLeaseTakeoverKeepsPublishedTierRegressionTest {

  private static final Target SICK = Target.parse("anthropic/claude-sick");
  private static final Target SMALL = Target.parse("anthropic/claude-small");
  private static final List<Target> SMART = List.of(SICK, SMALL);
  private static final Duration EVERY = Duration.ofSeconds(5);

  @AutoClose
  private final RedisFixture redis = new RedisFixture();
  private final ManualClock clock = new ManualClock();

  private TierBoard board() throws Exception {
    return redis.board("""
        upstreams:
          anthropic: { url: "https://api.anthropic.com" }
        models:
          smart: { chain: [anthropic/claude-sick, anthropic/claude-small] }
        """, clock);
  }

  /** A steps the pair down to T2 on its clients' failures (the burn) and publishes it; B serves it. */
  private void aPublishesT2(TierBoard a, TierBoard b) throws InterruptedException {
    for (int i = 0; i < 30; i++) {
      a.tier("default", "smart", SMART);
      a.onFailure(SICK, OVERLOADED, Duration.ofMillis(30));
      a.onFailure(SMALL, OVERLOADED, Duration.ofMillis(30));
      a.failed("default", "smart", Duration.ofMillis(70));
      clock.advance(Duration.ofMillis(100));
    }
    a.evaluateAll(); // a takes the lease
    assertThat(a.tier("default", "smart", SMART)).isEqualTo(Tier.T2);
    assertThat(RedisFixture.eventually(Duration.ofSeconds(2), () -> {
      clock.advance(Duration.ofMillis(60)); // past the view TTL (virtual time)
      return b.tier("default", "smart", SMART) == Tier.T2;
    })).isTrue();
    assertThat(redis.get("tier:{default/smart}")).isEqualTo("T2");
  }

  /** A is killed: it renews nothing from now on, and its lease runs out. */
  private void aCrashes() {
    redis.delete("tier-lease:{default}");
  }

  /**
   * One evaluation period of B's requests at T2: each answered from the cache, and the probe of the
   * reduced target failing ({@code healed}: answering); then B evaluates. Returns B's tier.
   */
  private Tier bPeriod(TierBoard b, boolean healed) {
    for (int i = 0; i < 10; i++) {
      b.tier("default", "smart", SMART);
      if (healed) {
        b.onSuccess(SMALL, Duration.ofMillis(40));
      } else {
        b.onFailure(SMALL, OVERLOADED, Duration.ofMillis(30));
      }
      b.answered("default", "smart", null);
      clock.advance(EVERY.dividedBy(10));
    }
    b.evaluateAll();
    return b.tier("default", "smart", SMART);
  }

  @Test
  void theNewHolderKeepsT2WhileTheOutageGoesOnAndStepsUpThroughT1OnceHealthy() throws Exception {
    try (TierBoard a = board(); TierBoard b = board()) {
      aPublishesT2(a, b);
      aCrashes();

      // the outage goes on for a minute after b took the lease
      for (int i = 0; i < 12; i++) {
        assertThat(bPeriod(b, false)).as("b holds the lease, the outage goes on (period %d)", i).isEqualTo(Tier.T2);
        assertThat(redis.get("tier:{default/smart}")).as("the published tier stays").isEqualTo("T2");
      }
      assertThat(b.transitions()).as("the tier never changed").isZero();

      // healed: b steps up by the rules, one tier per healthy-for, each step logged and published
      List<Tier> seen = new ArrayList<>();
      List<String> published = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        Tier t = bPeriod(b, true);
        if (seen.isEmpty() || seen.getLast() != t) {
          seen.add(t);
          published.add(String.valueOf(redis.get("tier:{default/smart}")));
        }
      }
      assertThat(seen).containsExactly(Tier.T2, Tier.T1, Tier.T0);
      assertThat(published).containsExactly("T2", "T1", "null");
      assertThat(b.transitions()).as("T2 -> T1 and T1 -> T0, each a transition").isEqualTo(2);
      assertThat(a.transitions()).isEqualTo(1);
    }
  }

  @Test
  void aHolderWithoutEvidenceKeepsTheAdoptedTierForHealthyForThenStepsUpOneTierAtATime() throws Exception {
    try (TierBoard a = board(); TierBoard b = board()) {
      aPublishesT2(a, b);
      aCrashes();

      // b sees no more traffic: quiet windows are healthy, but only after healthy-for (30 s) of them
      List<Tier> tiers = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        b.evaluateAll();
        tiers.add(redis.get("tier:{default/smart}") == null ? Tier.T0 : Tier.valueOf(redis.get("tier:{default/smart}")));
        clock.advance(EVERY);
      }
      assertThat(tiers.subList(0, 6)).as("no step up at once: a healthy run starts at the adoption")
          .containsOnly(Tier.T2);
      assertThat(tiers).as("quiet and healthy: one step per healthy-for, never held for ever")
          .containsSubsequence(Tier.T2, Tier.T1, Tier.T0).endsWith(Tier.T0);
      assertThat(tiers.stream().distinct().toList()).containsExactly(Tier.T2, Tier.T1, Tier.T0);
      assertThat(b.transitions()).isEqualTo(2);
    }
  }

  @Test
  void aPairTheNewHolderOnlyKnowsFromRedisIsAdoptedToo() throws Exception {
    String yaml = """
        upstreams:
          anthropic: { url: "https://api.anthropic.com" }
        models:
          smart: { chain: [anthropic/claude-sick, anthropic/claude-small] }
          fast: { chain: [anthropic/claude-small] }
        """;
    try (TierBoard a = redis.board(yaml, clock); TierBoard b = redis.board(yaml, clock)) {
      for (int i = 0; i < 30; i++) {
        a.tier("default", "smart", SMART);
        a.onFailure(SICK, OVERLOADED, Duration.ofMillis(30));
        a.onFailure(SMALL, OVERLOADED, Duration.ofMillis(30));
        a.failed("default", "smart", Duration.ofMillis(70));
        clock.advance(Duration.ofMillis(100));
      }
      a.evaluateAll();
      assertThat(redis.get("tier:{default/smart}")).isEqualTo("T2");
      aCrashes();

      b.tier("default", "fast", List.of(SMALL)); // b served the feature, never through smart
      b.evaluateAll(); // b takes the lease and learns default/smart from Redis
      assertThat(redis.get("tier:{default/smart}")).isEqualTo("T2");
      assertThat(b.tier("default")).as("b evaluates the pair it learned").isEqualTo(Tier.T2);

      clock.advance(Duration.ofSeconds(31)); // healthy-for of quiet readings, then one step
      b.evaluateAll();
      b.evaluateAll();
      clock.advance(Duration.ofSeconds(5));
      b.evaluateAll();
      assertThat(redis.get("tier:{default/smart}")).isEqualTo("T1");
      assertThat(b.transitions()).isEqualTo(1);
    }
  }
}
