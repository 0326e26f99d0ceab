package dev.levee.sim;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Permit;
import dev.levee.core.budget.RetryBudget;
import dev.levee.core.retry.Backoff;
import dev.levee.core.throttle.AdaptiveThrottle;
import dev.levee.core.throttle.RetryThrottle;
import dev.levee.core.time.Ticker;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * A {@link ClientPolicy} made of levee-core's own classes — {@link RetryBudget}, {@link Backoff},
 * {@link CircuitBreaker}, {@link AdaptiveThrottle}, {@link RetryThrottle} — never copies of
 * their rules.
 *
 * <p>Order: before each attempt the breaker admits it, then the adaptive throttle; after a failure
 * with attempts left the retry budget is asked, then the gRPC retry throttle; the wait comes from
 * the fixed delay or the backoff (never the overload-specific one). This differs from {@code
 * FallbackChain}, which asks the budget after the wait, just before the call and after the
 * breaker, so a retry the breaker refuses costs the gateway no token; the studies keep their
 * order because their published figures were measured with it. Not thread-safe (the simulation
 * is single-threaded), although the core classes are.
 */
public final class CorePolicy implements ClientPolicy {

  private static final Object ADMITTED = new Object();

  private final double fixedDelaySeconds;
  private final Backoff backoff;
  private final RandomGenerator random;
  private final RetryBudget budget;
  private final CircuitBreaker breaker;
  private final AdaptiveThrottle throttle;
  private final RetryThrottle retryThrottle;
  private final String guardName;

  private CorePolicy(PolicySpec spec, Ticker ticker, RandomGenerator random) {
    this.fixedDelaySeconds = spec.fixedDelaySeconds();
    this.backoff = spec.backoff();
    this.random = Objects.requireNonNull(random, "random");
    this.budget = spec.hasBudget() ? new RetryBudget(spec.budgetMax(), spec.budgetRatio()) : null;
    this.breaker = spec.breaker() == null ? null : new CircuitBreaker(spec.name(), spec.breaker(), ticker);
    this.throttle = spec.hasAdaptiveThrottle()
        ? new AdaptiveThrottle(spec.throttleK(), spec.throttleWindow(), ticker, random) : null;
    this.retryThrottle = spec.hasRetryThrottle()
        ? new RetryThrottle(spec.grpcMaxTokens(), spec.grpcTokenRatio()) : null;
    if (budget != null) {
      guardName = "budget tokens / " + number(budget.max());
    } else if (retryThrottle != null) {
      guardName = "A6 tokens / " + number(retryThrottle.maxTokens());
    } else if (throttle != null) {
      guardName = "admit probability";
    } else if (breaker != null) {
      guardName = "breaker closed";
    } else {
      guardName = "";
    }
  }

  /**
   * Builds fresh core policies for one run.
   *
   * @param ticker the run's virtual clock (read by the breaker and the adaptive throttle)
   * @param random the run's generator (jitter draws and throttle draws)
   */
  public static CorePolicy create(PolicySpec spec, Ticker ticker, RandomGenerator random) {
    if (spec.needsClock()) {
      Objects.requireNonNull(ticker, "ticker");
    }
    return new CorePolicy(spec, ticker, random);
  }

  @Override
  public Object admit(int attempt) {
    Permit permit = null;
    if (breaker != null) {
      if (!(breaker.tryAcquire() instanceof CircuitBreaker.Admitted admitted)) {
        return null;
      }
      permit = admitted.permit();
    }
    if (throttle != null && !throttle.tryAcquire()) {
      if (permit != null) {
        permit.cancelled(); // never reached the upstream: says nothing about its health
      }
      return null;
    }
    return permit != null ? permit : ADMITTED;
  }

  @Override
  public void onResponse(Object ticket, boolean success) {
    if (ticket instanceof Permit permit) {
      if (success) {
        permit.success();
      } else {
        permit.failure();
      }
    }
    if (success) {
      if (budget != null) budget.onSuccess();
      if (throttle != null) throttle.onAccepted();
      if (retryThrottle != null) retryThrottle.onSuccess();
    } else if (retryThrottle != null) {
      retryThrottle.onFailure();
    }
  }

  @Override
  public boolean mayRetry() {
    if (retryThrottle != null && !retryThrottle.isRetryAllowed()) {
      return false;
    }
    return budget == null || budget.tryAcquire();
  }

  @Override
  public double retryDelaySeconds(int retry) {
    if (!Double.isNaN(fixedDelaySeconds)) {
      return fixedDelaySeconds;
    }
    return backoff.delay(retry, false, random).toNanos() / 1e9;
  }

  @Override
  public double guard() {
    if (budget != null) return budget.remaining() / budget.max();
    if (retryThrottle != null) return retryThrottle.tokens() / retryThrottle.maxTokens();
    if (throttle != null) return 1 - throttle.rejectionProbability();
    if (breaker != null) return breaker.state() == CircuitState.CLOSED ? 1 : breaker.state() == CircuitState.HALF_OPEN ? 0.5 : 0;
    return Double.NaN;
  }

  @Override
  public String guardName() {
    return guardName;
  }

  private static String number(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }
}
