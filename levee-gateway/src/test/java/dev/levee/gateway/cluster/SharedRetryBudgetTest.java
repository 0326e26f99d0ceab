package dev.levee.gateway.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.time.SystemClock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One retry budget shared by three replicas on the real Redis. */
class SharedRetryBudgetTest {

  private final RedisFixture redis = new RedisFixture();

  @AfterEach
  void cleanUp() {
    redis.close();
  }

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
}
