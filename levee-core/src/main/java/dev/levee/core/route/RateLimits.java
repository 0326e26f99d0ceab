package dev.levee.core.route;

import dev.levee.core.bound.BoundedTable;
import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The {@link RateLimitState} of every target, created on first observation; the router's {@link
 * Pacing}. Fed the rate-limit headers of every answer ({@link #observe}) and, as a {@link
 * CallObserver}, every 429 that states a {@code retry-after} (a 429 without one, the spend limit,
 * says nothing of when capacity returns and is left to the breaker). A target never observed is
 * covered. Clients can name any model, so the table is a {@link BoundedTable} like the breakers':
 * at most {@link #MAX_TARGETS} targets besides the configured ones (pinned,
 * as the breakers pin them), the least used evicted first, and a target not observed for
 * {@link #IDLE_FOR} forgotten (it reads as never observed: covered). Targets never share a state
 * (review: past 1,000 targets every new one shared its upstream's, so after weeks of churn a new
 * target's limits were tracked with others'). Covering and reserving are not uses. Thread-safe.
 */
public final class RateLimits implements Pacing, CallObserver {

  /** The most targets tracked at once. */
  public static final int MAX_TARGETS = 1000;

  /**
   * How long a target not observed keeps its state: an hour, far past the minute in which
   * Anthropic's buckets refill, so a state is forgotten only once its resets have passed.
   */
  public static final Duration IDLE_FOR = Duration.ofHours(1);

  private final BoundedTable<Target, RateLimitState> byTarget;

  /** Rate limits with no pinned target: every target may be evicted (tests, benchmarks). */
  public RateLimits(Ticker ticker) {
    this(ticker, List.of());
  }

  /**
   * @param configured the configured targets (every alias's chain): pinned, never evicted, as the
   *     breakers pin them, so that a client naming thousands of models cannot push out a
   *     configured target's empty bucket and have it read as covered (review 3)
   */
  public RateLimits(Ticker ticker, Collection<Target> configured) {
    Objects.requireNonNull(ticker, "ticker");
    this.byTarget = new BoundedTable<>(MAX_TARGETS, IDLE_FOR, ticker, configured, t -> new RateLimitState(ticker));
  }

  /** Takes in the rate-limit headers of one answer from {@code target}; an empty reading changes nothing. */
  public void observe(Target target, RateLimitReading reading) {
    if (!reading.isEmpty()) {
      stateOf(target).observe(reading);
    }
  }

  /** {@code target} answered 429 asking to wait {@code retryAfter}. */
  public void observeRetryAfter(Target target, Duration retryAfter) {
    stateOf(target).observeRetryAfter(retryAfter);
  }

  @Override
  public void onSuccess(Target target, Duration latency) {}

  @Override
  public void onFailure(Target target, Failure failure, Duration latency) {
    if (failure.kind() == FailureKind.RATE_LIMITED) {
      failure.retryAfter().ifPresent(wait -> observeRetryAfter(target, wait));
    }
  }

  @Override
  public boolean covers(Target target, long inputTokens) {
    RateLimitState state = existing(target);
    return state == null || state.covers(inputTokens);
  }

  /** How long until {@code target} covers a request of {@code inputTokens}; zero when it does now. */
  public Duration untilCovered(Target target, long inputTokens) {
    RateLimitState state = existing(target);
    return state == null ? Duration.ZERO : state.untilCovered(inputTokens);
  }

  /** Reserves a request on {@code target}; see {@link RateLimitState#tryReserve(long)}. */
  public boolean tryReserve(Target target, long inputTokens) {
    RateLimitState state = existing(target);
    return state == null || state.tryReserve(inputTokens);
  }

  private RateLimitState existing(Target target) {
    return byTarget.peek(target);
  }

  private RateLimitState stateOf(Target target) {
    return byTarget.get(target);
  }
}
