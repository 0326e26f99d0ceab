package dev.levee.gateway.jobs;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Work done in slices within an upkeep's budget ({@link JobWorkers#UPKEEP_BUDGET}): the purge of
 * ended work ({@link JobStore#purgeAll}) and the sweep of idempotency keys past their TTL. Each slice
 * is a short statement or transaction of its own, so requests get the store between them.
 */
public final class Slices {

  /**
   * What one slice did: {@code count} rows, and whether it stopped on one of its caps ({@code full}),
   * so that more may be left.
   */
  public record Done(int count, boolean full) {}

  private Slices() {}

  /**
   * Runs {@code slice} again while the last one came back full and {@code budget} has not passed on
   * {@code nanos} since the first began; at least once, whatever the budget. The budget is checked
   * between slices: one slice may outlast it. Returns the rows of every slice run.
   *
   * @param nanos a monotonic clock, nanoseconds ({@code System::nanoTime}; a test's ticker)
   * @param budget how long to go on starting slices; zero: one slice
   */
  public static int untilShortOrSpent(Supplier<Done> slice, LongSupplier nanos, Duration budget) {
    long start = nanos.getAsLong();
    long budgetNanos = budget.toNanos();
    int count = 0;
    Done done;
    do {
      done = slice.get();
      count += done.count();
    } while (done.full() && nanos.getAsLong() - start < budgetNanos);
    return count;
  }
}
