package dev.levee.gateway.cluster;

import static dev.levee.gateway.cluster.RedisFixture.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.time.SystemClock;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.breaker.CircuitState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** Three replicas (three independent clusters in one JVM) share one breaker per target on the real Redis. */
class SharedBreakerTest {

  private static final Duration TRIAL_LEASE = Duration.ofSeconds(10);
  @AutoClose
  private final RedisFixture redis = new RedisFixture();

  private List<SharedBreaker> threeReplicas(CircuitBreakerConfig config) throws InterruptedException {
    List<SharedBreaker> breakers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      breakers.add(redis.replica(SystemClock.ticker()).breaker("emu/primary", config, TRIAL_LEASE));
    }
    return breakers;
  }

  @Test
  void failuresOfAllReplicasAreSummedAndTheOneThatReachesTheThresholdOpensItForAll() throws Exception {
    List<SharedBreaker> replicas = threeReplicas(CircuitBreakerConfig.of(6, Duration.ofSeconds(30), Duration.ofSeconds(30)));
    for (int round = 0; round < 5; round++) { // five failures, spread round-robin: below the threshold
      SharedBreaker.Admission admission = replicas.get(round % 3).tryAcquire();
      assertThat(admission).isInstanceOf(SharedBreaker.Admitted.class);
      ((SharedBreaker.Admitted) admission).permit().failure();
    }
    assertThat(replicas).allSatisfy(b -> assertThat(b.state()).isEqualTo(CircuitState.CLOSED));
    List<String> transitions = new ArrayList<>();
    replicas.forEach(b -> b.onTransition(t -> transitions.add(t.to() + " " + t.reason())));

    SharedBreaker.Admission sixth = replicas.get(2).tryAcquire();
    ((SharedBreaker.Admitted) sixth).permit().failure();

    assertThat(eventually(Duration.ofSeconds(5), () -> replicas.stream().allMatch(b -> b.state() == CircuitState.OPEN)))
        .as("every replica sees OPEN").isTrue();
    assertThat(replicas).allSatisfy(b -> assertThat(b.tryAcquire())
        .isInstanceOfSatisfying(SharedBreaker.Rejected.class, r -> assertThat(r.retryAfter()).isPositive()));
    assertThat(transitions).as("posted once, by the replica whose failure opened it")
        .containsExactly("OPEN 6 failures within 30s across replicas");
    // no replica's own breaker saw enough failures to open by itself
    assertThat(replicas).allSatisfy(b -> assertThat(b.local().state()).isEqualTo(CircuitState.CLOSED));
  }

  @Test
  void whenTheOpenPeriodEndsExactlyOneTrialIsAdmittedAcrossHundredConcurrentCallsOnThreeReplicas() throws Exception {
    List<SharedBreaker> replicas = threeReplicas(
        CircuitBreakerConfig.of(1, Duration.ofSeconds(30), Duration.ofMillis(300)).withCloseAfter(1));
    ((SharedBreaker.Admitted) replicas.get(0).tryAcquire()).permit().failure();
    assertThat(eventually(Duration.ofSeconds(5), () -> replicas.stream().allMatch(b -> b.state() == CircuitState.HALF_OPEN)))
        .as("the open period (300 ms) ends for every replica").isTrue();

    List<SharedBreaker.Admission> admissions = concurrently(100, i -> replicas.get(i % 3).tryAcquire());

    List<SharedPermit> trials = admissions.stream()
        .filter(a -> a instanceof SharedBreaker.Admitted).map(a -> ((SharedBreaker.Admitted) a).permit()).toList();
    assertThat(trials).hasSize(1);
    assertThat(trials.getFirst().trial()).isTrue();
    assertThat(admissions.stream().filter(a -> a instanceof SharedBreaker.Rejected r && r.state() == CircuitState.HALF_OPEN))
        .hasSize(99);

    trials.getFirst().success();
    assertThat(eventually(Duration.ofSeconds(5), () -> replicas.stream().allMatch(b -> b.state() == CircuitState.CLOSED)))
        .as("one trial success closes it everywhere (close-after 1)").isTrue();
  }

  @Test
  void aFailedTrialReopensForEveryReplica() throws Exception {
    CircuitBreakerConfig config = CircuitBreakerConfig.of(1, Duration.ofSeconds(30), Duration.ofSeconds(1)).withCloseAfter(1);
    List<SharedBreaker> replicas = threeReplicas(config);
    ((SharedBreaker.Admitted) replicas.get(0).tryAcquire()).permit().failure();
    assertThat(eventually(Duration.ofSeconds(5), () -> replicas.get(2).state() == CircuitState.HALF_OPEN)).isTrue();
    SharedPermit trial = ((SharedBreaker.Admitted) replicas.get(2).tryAcquire()).permit();
    assertThat(trial.trial()).isTrue();
    assertThat(replicas.get(0).tryAcquire()).isInstanceOf(SharedBreaker.Rejected.class);

    trial.failure();

    assertThat(freshReplica(config).tryAcquire()).as("Redis says OPEN again")
        .isInstanceOfSatisfying(SharedBreaker.Rejected.class, r -> assertThat(r.state()).isEqualTo(CircuitState.OPEN));
    assertThat(eventually(Duration.ofSeconds(5), () -> replicas.get(0).tryAcquire() instanceof SharedBreaker.Rejected r
        && r.state() == CircuitState.OPEN))
        .as("the invalidation reaches the replica that saw the trial running").isTrue();
  }

  @Test
  void aFailureAdmittedBeforeTheCircuitOpenedDoesNotCountAfterwards() throws Exception {
    CircuitBreakerConfig config = CircuitBreakerConfig.of(2, Duration.ofSeconds(30), Duration.ofMillis(300)).withCloseAfter(1);
    List<SharedBreaker> replicas = threeReplicas(config);
    SharedPermit slow = ((SharedBreaker.Admitted) replicas.get(0).tryAcquire()).permit();
    ((SharedBreaker.Admitted) replicas.get(1).tryAcquire()).permit().failure();
    ((SharedBreaker.Admitted) replicas.get(1).tryAcquire()).permit().failure(); // opens
    assertThat(eventually(Duration.ofSeconds(5), () -> replicas.get(2).state() == CircuitState.HALF_OPEN)).isTrue();
    SharedPermit trial = ((SharedBreaker.Admitted) replicas.get(2).tryAcquire()).permit();
    trial.success(); // closes

    slow.failure(); // admitted two transitions ago: ignored
    assertThat(eventually(Duration.ofSeconds(5), () -> replicas.get(1).state() == CircuitState.CLOSED)).isTrue();
    ((SharedBreaker.Admitted) replicas.get(1).tryAcquire()).permit().failure(); // one fresh failure of two

    assertThat(freshReplica(config).state()).as("Redis says CLOSED: the old failure did not count").isEqualTo(CircuitState.CLOSED);
  }

  /** A replica that has read nothing yet: its answer is what Redis holds now. */
  private SharedBreaker freshReplica(CircuitBreakerConfig config) throws InterruptedException {
    return redis.replica(SystemClock.ticker()).breaker("emu/primary", config, TRIAL_LEASE);
  }

  interface Call<T> {
    T run(int i) throws Exception;
  }

  static <T> List<T> concurrently(int calls, Call<T> call) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<T>> futures = new ArrayList<>();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < calls; i++) {
        int n = i;
        futures.add(pool.submit(() -> {
          start.await();
          return call.run(n);
        }));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> future : futures) {
        results.add(future.get());
      }
      return results;
    }
  }
}
