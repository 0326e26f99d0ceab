package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.core.chain.RetryBudgets;
import dev.levee.core.chain.Target;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** Retry budgets shared by replicas on the real Redis. */
class SharedRetryBudgetTest {

  @AutoClose
  private final RedisFixture redis = new RedisFixture();

  @Test
  void threeReplicasTogetherNeverGetMoreThanMaxRetryTokens() throws Exception {
    List<SharedRetryBudget> replicas = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      replicas.add(redis.replica(SystemClock.ticker()).budget("interactive", 20, 0));
    }

    List<Boolean> grants = SharedBreakerTest.concurrently(150, i -> replicas.get(i % 3).tryAcquire());

    assertThat(grants.stream().filter(granted -> granted)).hasSize(20);
    assertThat(replicas.get(1).remaining()).isZero();
    // each replica's own bucket (max 20) would have granted up to 20 by itself: 60 in all
  }

  @Test
  void eachConfiguredTargetHasItsOwnSharedBucketAndOthersShareOne() throws Exception {
    Target sick = Target.parse("emu/emu-529");
    Target healthy = Target.parse("emu/emu-ok");
    Target named = Target.parse("emu/a-client-named-this");
    RetryBudgets a = redis.replica(SystemClock.ticker()).budgets(List.of(sick, healthy), 2, 0);
    RetryBudgets b = redis.replica(SystemClock.ticker()).budgets(List.of(sick, healthy), 2, 0);

    assertThat(a.of(sick).tryAcquire()).isTrue();
    assertThat(b.of(sick).tryAcquire()).isTrue();
    assertThat(a.of(named).tryAcquire()).isTrue();
    assertThat(b.of(named).tryAcquire()).isTrue();

    assertThat(b.of(sick).tryAcquire()).as("the sick target's bucket, spent by both replicas").isFalse();
    assertThat(a.of(Target.parse("emu/another-name")).tryAcquire()).as("the overflow bucket, spent").isFalse();
    assertThat(b.of(healthy).remaining()).as("the healthy target's bucket, untouched").isEqualTo(2.0);
    assertThat(b.of(healthy).tryAcquire()).isTrue();
    assertThat(((SharedRetryBudget) a.of(healthy)).name()).isEqualTo("retry:emu/emu-ok");
    assertThat(((SharedRetryBudget) a.overflow()).name()).isEqualTo(Cluster.OVERFLOW_BUDGET);
  }

  @Test
  void successesOnAnyReplicaEarnTokensForAll() throws Exception {
    SharedRetryBudget a = redis.replica(SystemClock.ticker()).budget("batch", 2, 0.5);
    SharedRetryBudget b = redis.replica(SystemClock.ticker()).budget("batch", 2, 0.5);
    assertThat(a.tryAcquire()).isTrue();
    assertThat(b.tryAcquire()).isTrue();
    assertThat(a.tryAcquire()).as("empty").isFalse();

    a.onSuccess();
    a.onSuccess(); // one token earned on replica a, credited with its next command

    a.flush();
    assertThat(b.tryAcquire()).isTrue();
    assertThat(b.tryAcquire()).isFalse();
  }

  @Test
  void withLeasesTheReplicasTogetherStillNeverGetMoreThanMax() throws Exception {
    List<SharedRetryBudget> replicas = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      replicas.add(redis.replica(SystemClock.ticker()).budget("interactive", 100, 0, 5));
    }

    List<Boolean> grants = SharedBreakerTest.concurrently(600, i -> replicas.get(i % 3).tryAcquire());

    long granted = grants.stream().filter(g -> g).count();
    assertThat(granted).as("never more than max").isLessThanOrEqualTo(100);
    // leases left unspent at the end are few: about one of 4 tokens per replica (a race may leave two)
    assertThat(granted).isGreaterThanOrEqualTo(100 - 3 * 2 * 4);
  }

  @Test
  void aLeaseLeftUnspentGoesBackToTheSharedBucket() throws Exception {
    ManualClock clock = new ManualClock();
    SharedRetryBudget a = redis.replica(clock).budget("batch", 10, 0, 5);
    SharedRetryBudget b = redis.replica(clock).budget("batch", 10, 0, 5);
    assertThat(a.tryAcquire()).isTrue(); // took 5: spent 1, holds 4
    int drained = 0;
    while (b.tryAcquire()) {
      drained++;
    }
    assertThat(drained).as("b gets what a does not hold").isEqualTo(5);

    a.flush();
    assertThat(b.tryAcquire()).as("a's lease is young: still a's").isFalse();
    clock.advance(SharedRetryBudget.LEASE_TTL);
    a.flush();

    assertThat(b.tryAcquire()).as("given back after the lease's TTL").isTrue();
    assertThat(b.remaining()).isEqualTo(0);
    assertThat(a.tryAcquire()).as("a holds nothing now").isFalse();
  }
}
