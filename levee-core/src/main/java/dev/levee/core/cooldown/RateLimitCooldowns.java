package dev.levee.core.cooldown;

import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.Target;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The rate-limit cooldown of every target: a 429 that states how long to wait ({@code
 * retry-after-ms} or {@code retry-after}, Anthropic API docs "Rate limits") marks its target as
 * cooling until then, so that new requests skip it at once instead of spending an attempt on an
 * answer the upstream has already given.
 *
 * <p><b>Never shortened.</b> A new signal sets {@code until = max(until, now + stated)}: a
 * straggling 429 with a shorter wait, from a request that was in flight before, never shortens a
 * cooldown in force. A cooldown ends on its own; nothing else clears it.
 *
 * <p><b>Planning.</b> {@link #plan} leaves cooling targets out of a request's chain. When every
 * target cools, the request waits for the first one to be ready if that wait is no longer than the
 * longest stated wait Levee sits out ({@code max-retry-after}, as for a 429 met during the request:
 * {@link dev.levee.core.retry.RetryAfterPolicy}) and it and a minimal attempt fit the deadline;
 * else it is refused at once with that time as its {@code retry-after}.
 *
 * <p>Fed as a {@link CallObserver} (only {@link FailureKind#RATE_LIMITED} failures with a stated
 * wait count; a spend limit states none). At most {@link #MAX_TARGETS} targets besides the
 * configured ones cool at once; past that, expired entries are dropped first and a signal for yet
 * another target is ignored (it still reaches that target's breaker). A configured target (given
 * to the constructor) always cools. Time only from the injected {@link Ticker}. Thread-safe.
 */
public final class RateLimitCooldowns implements CallObserver {

  /** Targets that may be cooling at the same time. */
  public static final int MAX_TARGETS = 1000;

  private final Ticker ticker;
  private final Map<Target, Long> until = new ConcurrentHashMap<>();
  private final java.util.Set<Target> configured;
  private volatile Sharing sharing; // null: this process's cooldowns only

  /**
   * Cooldowns kept elsewhere too (e.g. shared by gateway replicas through Redis), with the same
   * max rule. Local cooldowns stay authoritative for this process; a target cools for the longer
   * of the two.
   */
  public interface Sharing {
    /** Starts or extends {@code target}'s cooldown by {@code stated} (max rule). */
    void coolFor(Target target, Duration stated);

    /** Time left of {@code target}'s cooldown as the sharing knows it; zero when none. */
    Duration remaining(Target target);
  }

  public RateLimitCooldowns(Ticker ticker) {
    this(ticker, java.util.Set.of());
  }

  /**
   * @param configured the configured targets: always cooled, outside the {@link #MAX_TARGETS}
   *     bound, so that the model names clients invent can never keep a configured target from
   *     cooling (as the breakers pin theirs)
   */
  public RateLimitCooldowns(Ticker ticker, java.util.Collection<Target> configured) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.configured = java.util.Set.copyOf(configured);
  }

  /** Shares every cooldown through {@code sharing} from now on. Call once, at start-up. */
  public void shareThrough(Sharing sharing) {
    this.sharing = Objects.requireNonNull(sharing, "sharing");
  }

  /**
   * Marks {@code target} as cooling for {@code stated} from now, unless it already cools longer.
   *
   * @param stated the upstream's wait; zero or negative changes nothing
   * @return the time the target now cools for
   */
  public Duration coolFor(Target target, Duration stated) {
    Objects.requireNonNull(target, "target");
    long now = ticker.nanos();
    if (stated.isPositive()) {
      boolean pinned = configured.contains(target);
      if (!pinned && !until.containsKey(target) && others() >= MAX_TARGETS) {
        until.values().removeIf(end -> end - now <= 0);
      }
      if (pinned || until.containsKey(target) || others() < MAX_TARGETS) {
        long end = now + stated.toNanos();
        until.merge(target, end, (a, b) -> a - b >= 0 ? a : b);
      }
      Sharing shared = sharing;
      if (shared != null) {
        shared.coolFor(target, stated);
      }
    }
    return remaining(target, now);
  }

  /** Entries of targets not configured (the bounded ones); cheap below the bound. */
  private int others() {
    int n = until.size();
    if (n < MAX_TARGETS) {
      return n;
    }
    for (Target t : configured) {
      if (until.containsKey(t)) {
        n--;
      }
    }
    return n;
  }

  /** How long {@code target} still cools; zero when it does not. */
  public Duration remaining(Target target) {
    return remaining(target, ticker.nanos());
  }

  private Duration remaining(Target target, long now) {
    Duration local = localRemaining(target, now);
    Sharing shared = sharing;
    if (shared == null) {
      return local;
    }
    Duration other = shared.remaining(target);
    return other.compareTo(local) > 0 ? other : local;
  }

  private Duration localRemaining(Target target, long now) {
    Long end = until.get(target);
    if (end == null) {
      return Duration.ZERO;
    }
    long left = end - now;
    if (left <= 0) {
      until.remove(target, end);
      return Duration.ZERO;
    }
    return Duration.ofNanos(left);
  }

  /** Whether {@code target} cools now. */
  public boolean cooling(Target target) {
    return remaining(target).isPositive();
  }

  /** Every target cooling now, with its remaining time, ordered by target id. */
  public Map<Target, Duration> snapshot() {
    long now = ticker.nanos();
    Map<Target, Duration> out = new LinkedHashMap<>();
    until.keySet().stream().sorted(Comparator.comparing(Target::id)).forEach(t -> {
      Duration left = remaining(t, now);
      if (left.isPositive()) {
        out.put(t, left);
      }
    });
    return out;
  }

  /**
   * The targets a request should try now.
   *
   * @param targets the request's chain, in order (not empty)
   * @param deadline the request's deadline
   * @param minAttemptTime an attempt is not started with less time left (the chain's {@code
   *     min-attempt-time})
   * @param maxWait the longest cooldown a request sits out (the chain's {@code max-retry-after});
   *     a longer one is refused at once, whatever the deadline
   * @return {@link CooldownPlan.Go} with the targets not cooling; when all cool, {@code Go} with
   *     the first ready one and the wait for it if that is at most {@code maxWait} and fits the
   *     deadline, else {@link CooldownPlan.Refuse}
   */
  public CooldownPlan plan(List<Target> targets, Deadline deadline, Duration minAttemptTime, Duration maxWait) {
    if (targets.isEmpty()) throw new IllegalArgumentException("a plan needs at least one target");
    Objects.requireNonNull(maxWait, "maxWait");
    long now = ticker.nanos();
    List<Target> ready = new ArrayList<>(targets.size());
    List<Target> skipped = new ArrayList<>(0);
    Target first = null;
    Duration firstLeft = null;
    for (Target target : targets) {
      Duration left = remaining(target, now);
      if (left.isZero()) {
        ready.add(target);
      } else {
        skipped.add(target);
        if (firstLeft == null || left.compareTo(firstLeft) < 0) {
          first = target;
          firstLeft = left;
        }
      }
    }
    if (!ready.isEmpty()) {
      return new CooldownPlan.Go(ready, Duration.ZERO, skipped);
    }
    if (firstLeft.compareTo(maxWait) <= 0 && deadline.fits(firstLeft, minAttemptTime)) {
      skipped.remove(first);
      return new CooldownPlan.Go(List.of(first), firstLeft, skipped);
    }
    return new CooldownPlan.Refuse(first, firstLeft);
  }

  @Override
  public void onSuccess(Target target, Duration latency) {}

  /** A 429 with a stated wait cools its target; anything else is ignored. */
  @Override
  public void onFailure(Target target, Failure failure, Duration latency) {
    if (failure.kind() == FailureKind.RATE_LIMITED && failure.retryAfter().isPresent()) {
      coolFor(target, failure.retryAfter().get());
    }
  }
}
