package dev.levee.gateway.cluster;

import dev.levee.core.budget.RetryBudget;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * One retry budget (the token bucket of {@link RetryBudget}) shared by every replica, so N
 * replicas together add at most the retries one budget allows, not N times as many.
 *
 * <p>The arithmetic runs in Redis, in one script, so the replicas together can never spend more
 * than {@code max} tokens plus what successes earned. A success costs no round trip: successes
 * are counted locally and credited with the next retry or {@link #flush()} (the cluster flushes
 * every 100 ms). A retry costs one command.
 *
 * <p>While Redis is away, the replica spends from its own {@link RetryBudget}, which is fed every
 * success and every shared retry so that it reflects recent traffic; during that time the cluster
 * as a whole may exceed {@code max} (up to one budget per replica). A bucket missing in Redis
 * (a restart) is full. Thread-safe.
 */
public final class SharedRetryBudget {

  private static final LuaScript BUDGET = LuaScript.load("budget");
  private static final String TTL_MILLIS = Long.toString(3_600_000); // an idle bucket is forgotten after 1 h

  private final String name;
  private final RedisLink link;
  private final RetryBudget local;
  private final String[] key;
  private final LongAdder unsent = new LongAdder();

  SharedRetryBudget(String name, double max, double ratio, RedisLink link) {
    this.name = name;
    this.link = link;
    this.local = new RetryBudget(max, ratio);
    this.key = new String[] {link.key("budget:{" + name + "}")};
  }

  public String name() {
    return name;
  }

  /** Records a successful call; credited to the shared bucket with the next command. */
  public void onSuccess() {
    local.onSuccess();
    if (local.ratio() > 0) {
      unsent.increment();
    }
  }

  /** Spends one token for a retry; false (nothing spent) when fewer than one remain. */
  public boolean tryAcquire() {
    Optional<Boolean> shared = run(true).map(answer -> answer.get(0) instanceof Long granted && granted == 1);
    if (shared.isEmpty()) {
      return local.tryAcquire();
    }
    if (shared.get()) {
      local.tryAcquire(); // keep the local bucket in step, whatever it says
    }
    return shared.get();
  }

  /** Credits counted successes now (called by the cluster's flusher). */
  public void flush() {
    if (unsent.sum() > 0) {
      run(false);
    }
  }

  /** Tokens left in the shared bucket, or in the local one while Redis is away. */
  public double remaining() {
    return run(false).map(answer -> Double.parseDouble(String.valueOf(answer.get(1)))).orElseGet(local::remaining);
  }

  private Optional<List<Object>> run(boolean retry) {
    if (!link.tryShared()) {
      return Optional.empty();
    }
    long earned = unsent.sumThenReset();
    Optional<List<Object>> answer = link.eval(BUDGET, ScriptOutputType.MULTI, key,
        Double.toString(local.max()), Double.toString(local.ratio()), Long.toString(earned), retry ? "1" : "0", TTL_MILLIS);
    if (answer.isEmpty() && earned > 0) {
      unsent.add(earned); // not credited: try again with the next command
    }
    return answer;
  }
}
