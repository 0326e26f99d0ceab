package dev.levee.core.budget;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Many threads on one budget: every token is accounted for exactly. A lost update (two threads
 * spending the same token, or a success overwritten) changes the final counts.
 */
class RetryBudgetConcurrencyTest {

  private static final int THREADS = 8;

  @Test
  void contendedRetriesAreGrantedExactlyAsManyTimesAsThereAreTokens() throws Exception {
    RetryBudget budget = new RetryBudget(5_000, 0);

    List<Integer> granted = onEveryThread(() -> {
      int mine = 0;
      for (int i = 0; i < 2_000; i++) { // 16 000 asks for 5 000 tokens
        if (budget.tryAcquire()) mine++;
      }
      return mine;
    });

    assertThat(granted.stream().mapToInt(Integer::intValue).sum()).isEqualTo(5_000);
    assertThat(budget.remaining()).isEqualTo(0.0);
  }

  @Test
  void interleavedSuccessesAndRetriesLoseNoUpdate() throws Exception {
    RetryBudget budget = new RetryBudget(1_000_000, 0.5);
    for (int i = 0; i < 500_000; i++) {
      budget.tryAcquire(); // 500 000 left: far from both empty and full during the race
    }

    List<Integer> denied = onEveryThread(() -> {
      int mine = 0;
      for (int i = 0; i < 10_000; i++) {
        if (!budget.tryAcquire()) mine++;
        budget.onSuccess();
        budget.onSuccess();
        budget.onSuccess();
      }
      return mine;
    });

    // each thread: -10 000 + 30 000 × 0.5 = +5 000
    assertThat(denied).containsOnly(0);
    assertThat(budget.remaining()).isEqualTo(500_000.0 + THREADS * 5_000.0);
  }

  @Test
  void contendedSuccessesStopExactlyAtTheMax() throws Exception {
    RetryBudget budget = new RetryBudget(1_000, 0.25);
    for (int i = 0; i < 1_000; i++) {
      budget.tryAcquire();
    }

    onEveryThread(() -> {
      for (int i = 0; i < 1_000; i++) { // 8 000 × 0.25 = 2 000 tokens offered, room for 1 000
        budget.onSuccess();
      }
      return 0;
    });

    assertThat(budget.remaining()).isEqualTo(1_000.0);
  }

  private static List<Integer> onEveryThread(java.util.concurrent.Callable<Integer> task) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    try (ExecutorService pool = Executors.newFixedThreadPool(THREADS)) {
      List<Future<Integer>> futures = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        futures.add(pool.submit(() -> {
          start.await();
          return task.call();
        }));
      }
      start.countDown();
      List<Integer> results = new ArrayList<>();
      for (Future<Integer> f : futures) {
        results.add(f.get());
      }
      return results;
    }
  }
}
