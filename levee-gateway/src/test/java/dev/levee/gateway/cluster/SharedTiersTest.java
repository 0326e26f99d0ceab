package dev.levee.gateway.cluster;

import static dev.levee.gateway.cluster.RedisFixture.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Tier decisions shared by three replicas. The replicas' clocks never move, so a local copy never
 * expires by itself: a change can only become visible through the pub/sub invalidation.
 */
class SharedTiersTest {

  @AutoClose
  private final RedisFixture redis = new RedisFixture();
  private final ManualClock frozen = new ManualClock();

  private List<SharedTiers> threeReplicas() throws InterruptedException {
    return List.of(redis.replica(frozen).tiers(), redis.replica(frozen).tiers(), redis.replica(frozen).tiers());
  }

  @Test
  void oneReplicaEvaluatesUnderTheLeaseAndItsTransitionIsPostedOnceAndServedByAll() throws Exception {
    List<SharedTiers> replicas = threeReplicas();
    replicas.forEach(t -> assertThat(t.current("chat")).isEqualTo(Tier.T0)); // local copies taken now

    assertThat(replicas.get(0).evaluates("chat")).isTrue();
    assertThat(replicas.get(1).evaluates("chat")).isFalse();
    assertThat(replicas.get(2).evaluates("chat")).isFalse();
    assertThat(replicas.get(0).evaluates("chat")).as("renewed by its holder").isTrue();
    assertThat(replicas.get(1).evaluates("search")).as("leases are per feature").isTrue();

    assertThat(replicas.get(0).publish("chat", Tier.T2)).contains(Tier.T0);
    assertThat(replicas.get(0).publish("chat", Tier.T2)).as("no change, nothing to post").isEmpty();
    assertThat(replicas.get(2).publish("chat", Tier.T2)).as("posted once, not per replica").isEmpty();

    assertThat(eventually(Duration.ofSeconds(5), () -> replicas.stream().allMatch(t -> t.current("chat") == Tier.T2)))
        .isTrue();
    assertThat(replicas.get(1).current("search")).isEqualTo(Tier.T0);
  }

  @Test
  void aTierForcedOnOneReplicaIsServedByAllAndEndsEverywhere() throws Exception {
    List<SharedTiers> replicas = threeReplicas();
    replicas.forEach(t -> assertThat(t.current("chat")).isEqualTo(Tier.T0));

    assertThat(replicas.get(1).force("chat", Tier.T3, Duration.ofMinutes(5))).isTrue();

    assertThat(eventually(Duration.ofSeconds(5), () -> replicas.stream().allMatch(t -> t.current("chat") == Tier.T3)))
        .isTrue();

    replicas.get(2).unforce("chat");

    assertThat(eventually(Duration.ofSeconds(5), () -> replicas.stream().allMatch(t -> t.current("chat") == Tier.T0)))
        .isTrue();
  }

  @Test
  void aCauseIsPublishedWithAChangeOfTierKeptWhileTheTierHoldsAndGoneAtT0() throws Exception {
    SharedTiers a = redis.replica(frozen).tiers();
    SharedTiers b = redis.replica(frozen).tiers();
    String smart = SharedTiers.scopeName("chat", "smart");
    assertThat(b.cause(smart)).as("nothing published: a local copy taken now").isNull();

    a.publish(smart, Tier.T2, "alias smart: burn, T0 -> T2");
    assertThat(eventually(Duration.ofSeconds(5), () -> "alias smart: burn, T0 -> T2".equals(b.cause(smart)))).isTrue();
    assertThat(redis.pttl("tier-cause:{chat/smart}")).as("lives as long as the tier").isPositive();

    b.publish(smart, Tier.T2, null); // a new holder that adopted T2: no transition of its own
    b.publish(smart, Tier.T2, "an old transition of b's own into T2");
    assertThat(redis.get("tier-cause:{chat/smart}")).as("kept: the tier did not change")
        .isEqualTo("alias smart: burn, T0 -> T2");

    b.publish(smart, Tier.T1, "alias smart: healthy, T2 -> T1");
    assertThat(eventually(Duration.ofSeconds(5), () -> "alias smart: healthy, T2 -> T1".equals(a.cause(smart))))
        .isTrue();
    b.publish(smart, Tier.T0, null);
    assertThat(redis.get("tier-cause:{chat/smart}")).isNull();
    assertThat(eventually(Duration.ofSeconds(5), () -> a.cause(smart) == null)).isTrue();
  }

  @Test
  void theLeaseGoesToAnotherReplicaWhenItsHolderStopsRenewing() throws Exception {
    SharedTiers a = redis.replica(frozen).tiers();
    SharedTiers b = redis.replica(frozen).tiers();
    assertThat(a.evaluates("chat")).isTrue();
    assertThat(b.evaluates("chat")).isFalse();

    // the fixture's lease is 3 s of Redis time; a stops renewing
    assertThat(eventually(Duration.ofSeconds(8), () -> b.evaluates("chat"))).isTrue();
    assertThat(a.evaluates("chat")).isFalse();
    assertThat(b.publish("chat", Tier.T1)).isEqualTo(Optional.of(Tier.T0));
  }
}
