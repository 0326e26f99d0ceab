package dev.levee.gateway.cluster;

import dev.levee.core.budget.Budget;
import dev.levee.core.budget.RetryBudget;
import dev.levee.core.time.Ticker;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * One retry budget (the token bucket of {@link RetryBudget}) shared by every replica, so N
 * replicas together add at most the retries one budget allows, not N times as many. The gateway
 * has one per configured target and one for every other target ({@link Cluster#budgets}).
 *
 * <p>The arithmetic runs in Redis, in one script, so the replicas together can never spend more
 * than {@code max} tokens plus what successes earned.
 *
 * <ul>
 *   <li>A success costs no round trip: successes are counted locally and credited with the next
 *       command or {@link #flush()} (the cluster flushes every 100 ms).
 *   <li>A retry that finds the replica's lease empty takes up to {@code leaseSize} whole tokens
 *       from the bucket in one command and spends the rest of them locally, without a round trip. Only
 *       one lease is fetched at a time per replica (concurrent retries take one token each), so a
 *       replica rarely holds more than {@code leaseSize - 1} tokens the others cannot use.
 *       Leased tokens left unspent for {@link #LEASE_TTL} go back to the bucket. Tokens are only
 *       ever moved, so the total granted never exceeds the bucket's; a lease of 1 is no lease.
 * </ul>
 *
 * <p>While Redis is away, the replica spends its lease, then its own {@link RetryBudget}, which
 * is fed every success and every shared retry so that it reflects recent traffic; during that time
 * the cluster as a whole may exceed {@code max} (up to one budget per replica). A bucket missing
 * in Redis (a restart) is full. Thread-safe.
 */
public final class SharedRetryBudget implements Budget {

  /** How long leased tokens may stay unspent before they go back to the shared bucket: 1 s. */
  public static final Duration LEASE_TTL = Duration.ofSeconds(1);

  private static final LuaScript BUDGET = LuaScript.load("budget");
  private static final String TTL_MILLIS = Long.toString(3_600_000); // an idle bucket is forgotten after 1 h

  private final String name;
  private final RedisLink link;
  private final Ticker ticker;
  private final RetryBudget local;
  private final int leaseSize;
  private final String[] key;
  private final LongAdder unsent = new LongAdder();
  private final LongAdder denied = new LongAdder();
  private final AtomicInteger leased = new AtomicInteger();
  private final AtomicInteger fetching = new AtomicInteger();
  private volatile long leasedAt;

  /**
   * @param leaseSize whole tokens a replica takes at once (at least 1; 1 means a round trip per retry)
   */
  SharedRetryBudget(String name, double max, double ratio, int leaseSize, RedisLink link, Ticker ticker) {
    if (leaseSize < 1) throw new IllegalArgumentException("lease size must be at least 1, was " + leaseSize);
    this.name = name;
    this.link = link;
    this.ticker = ticker;
    this.local = new RetryBudget(max, ratio);
    this.leaseSize = leaseSize;
    this.key = new String[] {link.key("budget:{" + name + "}")};
  }

  public String name() {
    return name;
  }

  /** Records a successful call; credited to the shared bucket with the next command. */
  @Override
  public void onSuccess() {
    local.onSuccess();
    if (local.ratio() > 0) {
      unsent.increment();
    }
  }

  /** Spends one token for a retry; false (nothing spent) when fewer than one remain. */
  @Override
  public boolean tryAcquire() {
    if (acquire()) {
      return true;
    }
    denied.increment();
    return false;
  }

  private boolean acquire() {
    if (takeLeased()) {
      local.tryAcquire(); // keep the local bucket in step, whatever it says
      return true;
    }
    // one lease at a time per replica: concurrent retries in a burst take one token each, so a
    // replica never hoards more than leaseSize - 1 tokens the others could use
    boolean leasing = fetching.getAndIncrement() == 0 && leased.get() == 0;
    Optional<Long> granted;
    try {
      granted = run(leasing ? leaseSize : 1, 0).map(answer -> (Long) answer.get(0));
    } finally {
      fetching.decrementAndGet();
    }
    if (granted.isEmpty()) {
      return local.tryAcquire();
    }
    if (granted.get() == 0) {
      return false;
    }
    if (granted.get() > 1) {
      leasedAt = ticker.nanos();
      leased.addAndGet((int) (granted.get() - 1));
    }
    local.tryAcquire();
    return true;
  }

  /** Credits counted successes and gives back a lease unspent for {@link #LEASE_TTL} (the cluster's flusher calls this). */
  public void flush() {
    int unspent = leased.get() > 0 && ticker.nanos() - leasedAt >= LEASE_TTL.toNanos() ? leased.getAndSet(0) : 0;
    if (unspent == 0 && unsent.sum() == 0) {
      return;
    }
    if (run(0, unspent).isEmpty() && unspent > 0) {
      leased.addAndGet(unspent); // not given back: still this replica's to spend
    }
  }

  /** Tokens left in the shared bucket (leases not counted), or in the local one while Redis is away. */
  @Override
  public double remaining() {
    return run(0, 0).map(answer -> Double.parseDouble(String.valueOf(answer.get(1)))).orElseGet(local::remaining);
  }

  @Override
  public double max() {
    return local.max();
  }

  /** Retries this replica was refused, by the shared bucket or, while Redis is away, by its own. */
  @Override
  public long denied() {
    return denied.sum();
  }

  private boolean takeLeased() {
    int left;
    do {
      left = leased.get();
      if (left == 0) {
        return false;
      }
    } while (!leased.compareAndSet(left, left - 1));
    return true;
  }

  private Optional<List<Object>> run(int wanted, int givenBack) {
    if (!link.tryShared()) {
      return Optional.empty();
    }
    long earned = unsent.sumThenReset();
    Optional<List<Object>> answer = link.eval(BUDGET, ScriptOutputType.MULTI, key,
        Double.toString(local.max()), Double.toString(local.ratio()), Long.toString(earned),
        Integer.toString(wanted), TTL_MILLIS, Integer.toString(givenBack));
    if (answer.isEmpty() && earned > 0) {
      unsent.add(earned); // not credited: try again with the next command
    }
    return answer;
  }
}
