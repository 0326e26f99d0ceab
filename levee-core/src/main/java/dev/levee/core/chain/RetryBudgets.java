package dev.levee.core.chain;

import dev.levee.core.budget.Budget;
import dev.levee.core.budget.RetryBudget;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The retry budgets of all targets: the fallback chain asks the budget of the target it is about
 * to call for a token, except for a request's first call on that bucket (the primary's first call,
 * and with a bucket per target a fallback's: the next server's first call), and a completed answer
 * credits the budget of the target that gave it. Hedges and stream recoveries always spend.
 *
 * <p>A budget per target, as gRFC A6 keeps its retry-throttling token count per server (here a
 * target, one model on one upstream deployment, is the server): a target that fails drains only
 * its own bucket, so its failures cannot take the retries of the others (Levee's promise: a fault
 * on one target does not degrade the others). Every configured target (those of the aliases'
 * chains) has its own bucket, made at construction; every other target — a model a client names
 * itself — draws on one {@linkplain #overflow() overflow} bucket, so the number of buckets is
 * bounded however clients name models, and client-chosen names cannot drain a configured target's
 * budget.
 *
 * <p>Immutable and thread-safe (the buckets themselves are thread-safe).
 */
public final class RetryBudgets {

  /**
   * The overflow bucket's name wherever it is reported: {@code /health}, the {@code target} label
   * of {@code levee_retry_budget_*}, its shared Redis key. A target's id always holds a {@code
   * '/'}, so it never collides with one.
   */
  public static final String OVERFLOW = "overflow";

  private final Map<Target, Budget> configured;
  private final Budget overflow;

  /**
   * @param configured the targets that get a bucket of their own
   * @param bucketOf makes a configured target's bucket (called once per target, here)
   * @param overflow the bucket every other target draws on
   */
  public RetryBudgets(Collection<Target> configured, Function<Target, ? extends Budget> bucketOf, Budget overflow) {
    Objects.requireNonNull(bucketOf, "bucketOf");
    Map<Target, Budget> buckets = new LinkedHashMap<>();
    configured.forEach(t -> buckets.put(t, Objects.requireNonNull(bucketOf.apply(t), "bucket of " + t)));
    this.configured = Collections.unmodifiableMap(buckets);
    this.overflow = Objects.requireNonNull(overflow, "overflow");
  }

  /**
   * Local buckets ({@link RetryBudget}) of {@code max} tokens earning {@code ratio} per success:
   * one per configured target and the overflow bucket.
   *
   * @throws IllegalArgumentException as {@link RetryBudget#RetryBudget} does
   */
  public static RetryBudgets local(Collection<Target> configured, double max, double ratio) {
    return new RetryBudgets(configured, t -> new RetryBudget(max, ratio), new RetryBudget(max, ratio));
  }

  /** One bucket for every target (no target has its own): a library user's single budget. */
  public static RetryBudgets one(Budget budget) {
    return new RetryBudgets(Set.of(), t -> budget, budget);
  }

  /** The bucket {@code target}'s calls draw on: its own when configured, else the overflow bucket. */
  public Budget of(Target target) {
    Budget own = configured.get(target);
    return own != null ? own : overflow;
  }

  /** Whether {@code target} has a bucket of its own (it is configured). */
  public boolean hasOwn(Target target) {
    return configured.containsKey(target);
  }

  /** Each configured target's own bucket, in the order the targets were given. */
  public Map<Target, Budget> configured() {
    return configured;
  }

  /** The bucket shared by every target that is not configured. */
  public Budget overflow() {
    return overflow;
  }

  /**
   * The bucket with the fewest tokens left (the overflow bucket included; on a tie, the first
   * configured one). One target that always fails pins this at 0, so the gateway's {@code /health}
   * counts drained buckets instead. Reads every bucket once (a shared bucket may cost a round trip
   * each).
   */
  public Lowest lowest() {
    return lowest(Budget::remaining);
  }

  /** As {@link #lowest()}, reading each bucket's tokens through {@code tokens} (e.g. a memo of this report's reads). */
  public Lowest lowest(ToDoubleFunction<Budget> tokens) {
    Target lowestTarget = null;
    double lowest = Double.POSITIVE_INFINITY;
    for (Map.Entry<Target, Budget> bucket : configured.entrySet()) {
      double left = tokens.applyAsDouble(bucket.getValue());
      if (left < lowest) {
        lowest = left;
        lowestTarget = bucket.getKey();
      }
    }
    double left = tokens.applyAsDouble(overflow);
    return left < lowest ? new Lowest(null, left) : new Lowest(lowestTarget, lowest);
  }

  /** Calls refused by every bucket together, for reports. */
  public long denied() {
    long sum = overflow.denied();
    for (Budget budget : configured.values()) {
      if (budget != overflow) {
        sum += budget.denied();
      }
    }
    return sum;
  }

  /**
   * The most drained bucket.
   *
   * @param target its target, or null for the overflow bucket
   * @param remaining its tokens left
   */
  public record Lowest(Target target, double remaining) {}
}
