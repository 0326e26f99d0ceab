package dev.levee.core.breaker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Exact counts under contention; no timing is asserted. */
class CircuitBreakerConcurrencyTest {

  private static final int THREADS = 16;

  @Test
  void manyThreadsRacingIntoHalfOpenGetExactlyTheAllowedTrials() throws Exception {
    ManualClock clock = new ManualClock();
    CircuitBreakerConfig config = CircuitBreakerConfig.of(1, Duration.ofSeconds(10), Duration.ofSeconds(5))
        .withHalfOpenTrials(3);
    CircuitBreaker breaker = new CircuitBreaker("t", config, clock);
    AtomicInteger halfOpenTransitions = new AtomicInteger();
    breaker.onTransition(t -> {
      if (t.to() == CircuitState.HALF_OPEN) halfOpenTransitions.incrementAndGet();
    });
    ((CircuitBreaker.Admitted) breaker.tryAcquire()).permit().failure();
    clock.advance(Duration.ofSeconds(5));

    int admitted = race(THREADS, () -> breaker.tryAcquire() instanceof CircuitBreaker.Admitted);

    assertThat(admitted).isEqualTo(3);
    assertThat(halfOpenTransitions).hasValue(1);
  }

  @Test
  void failuresSettledFromManyThreadsOpenTheBreakerExactlyOnce() throws Exception {
    ManualClock clock = new ManualClock();
    CircuitBreaker breaker = new CircuitBreaker(
        "t", CircuitBreakerConfig.of(THREADS, Duration.ofSeconds(10), Duration.ofSeconds(5)), clock);
    AtomicInteger opened = new AtomicInteger();
    breaker.onTransition(t -> {
      if (t.to() == CircuitState.OPEN) opened.incrementAndGet();
    });
    List<Permit> permits = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      permits.add(((CircuitBreaker.Admitted) breaker.tryAcquire()).permit());
    }
    AtomicInteger next = new AtomicInteger();

    race(THREADS, () -> {
      permits.get(next.getAndIncrement()).failure();
      return true;
    });

    assertThat(opened).hasValue(1);
    assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
  }

  /** Runs {@code task} once on each of {@code threads} threads released together; counts trues. */
  static int race(int threads, java.util.concurrent.Callable<Boolean> task) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        results.add(pool.submit(() -> {
          start.await();
          return task.call();
        }));
      }
      start.countDown();
      int trues = 0;
      for (Future<Boolean> f : results) {
        if (f.get()) trues++;
      }
      return trues;
    }
  }
}
