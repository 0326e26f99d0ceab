package dev.levee.core.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Many threads feeding and reading one target's statistics lose no outcome and read sane values. */
class RouterStatisticsConcurrencyTest {

  @Test
  void concurrentOutcomesAreAllCountedAndReadsStayInRange() throws Exception {
    ManualClock clock = new ManualClock();
    RouterStatistics statistics = new RouterStatistics(StatisticsConfig.DEFAULT, clock);
    Target target = new Target("anthropic", "claude-sonnet-4-6");
    Failure overloaded = Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "Overloaded");
    int threads = 8;
    int perThread = 5_000;
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    try (ExecutorService pool = Executors.newFixedThreadPool(threads + 1)) {
      for (int t = 0; t < threads; t++) {
        int id = t;
        futures.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < perThread; i++) {
            if ((i + id) % 10 == 0) {
              statistics.onFailure(target, overloaded, Duration.ofMillis(5));
            } else {
              statistics.onSuccess(target, Duration.ofMillis(100 + i % 400));
            }
            if (i % 1000 == 0) {
              clock.advanceMillis(1);
            }
          }
          return null;
        }));
      }
      futures.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < 20_000; i++) {
          TargetReading reading = statistics.read(target);
          assertThat(reading.success()).isBetween(0.0, 1.0);
          assertThat(reading.p95()).isPositive();
        }
        return null;
      }));
      start.countDown();
      for (Future<?> future : futures) {
        future.get();
      }
    }

    TargetReading reading = statistics.read(target);
    assertThat(reading.outcomes()).isEqualTo((long) threads * perThread);
    assertThat(reading.p95().toMillis()).isBetween(450L, 505L); // 100..499 ms spread evenly: p95 ≈ 480
  }
}
