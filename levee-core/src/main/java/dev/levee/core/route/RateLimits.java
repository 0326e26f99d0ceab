package dev.levee.core.route;

import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link RateLimitState} of every target, created on first observation; the router's {@link
 * Pacing}. Fed the rate-limit headers of every answer ({@link #observe}) and, as a {@link
 * CallObserver}, every 429 that states a {@code retry-after} (a 429 without one, the spend limit,
 * says nothing of when capacity returns and is left to the breaker). A target never observed is
 * covered. Bounded like the breakers: past {@link
 * #MAX_TARGETS} targets, new ones share one state per upstream (which is what the upstream's
 * limits are, per organisation and model class, anyway). Thread-safe.
 */
public final class RateLimits implements Pacing, CallObserver {

  /** Distinct targets tracked separately. */
  public static final int MAX_TARGETS = 1000;

  private final Ticker ticker;
  private final Map<Target, RateLimitState> byTarget = new ConcurrentHashMap<>();

  public RateLimits(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
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
    RateLimitState state = byTarget.get(target);
    return state != null ? state : byTarget.get(new Target(target.upstream(), "*"));
  }

  private RateLimitState stateOf(Target target) {
    RateLimitState existing = byTarget.get(target);
    if (existing != null) {
      return existing;
    }
    Target key = byTarget.size() < MAX_TARGETS ? target : new Target(target.upstream(), "*");
    return byTarget.computeIfAbsent(key, t -> new RateLimitState(ticker));
  }
}
