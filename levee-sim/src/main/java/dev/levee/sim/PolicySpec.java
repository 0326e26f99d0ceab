package dev.levee.sim;

import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.core.retry.Backoff;
import java.time.Duration;
import java.util.Objects;

/**
 * A client retry policy to simulate, as a composition of levee-core policies: how long to wait
 * between attempts, and optionally a retry budget, a circuit breaker, client-side adaptive
 * throttling and gRPC retry throttling. Immutable; {@link CorePolicy#create} builds fresh core
 * objects from it for each run.
 *
 * @param name the row label
 * @param fixedDelaySeconds a constant wait between attempts in seconds, or NaN to use {@code backoff}
 * @param backoff the full-jitter backoff used when there is no fixed delay (levee-core's {@link Backoff})
 * @param budgetMax retry-budget capacity in tokens, or NaN for no budget
 * @param budgetRatio retry-budget tokens earned per success
 * @param breaker circuit-breaker settings, or null for no breaker
 * @param throttleK adaptive-throttling multiplier K, or NaN for none (SRE book: 2)
 * @param throttleWindow adaptive-throttling history (SRE book: 2 minutes)
 * @param grpcMaxTokens gRFC A6 max tokens, or NaN for no retry throttling
 * @param grpcTokenRatio gRFC A6 token ratio
 */
public record PolicySpec(
    String name,
    double fixedDelaySeconds,
    Backoff backoff,
    double budgetMax,
    double budgetRatio,
    CircuitBreakerConfig breaker,
    double throttleK,
    Duration throttleWindow,
    double grpcMaxTokens,
    double grpcTokenRatio) {

  public PolicySpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(backoff, "backoff");
  }

  /** Retries after a constant {@code delaySeconds}, with no other guard. */
  public static PolicySpec fixed(String name, double delaySeconds) {
    return new PolicySpec(name, delaySeconds, Backoff.DEFAULT, Double.NaN, 0, null, Double.NaN, null, Double.NaN, 0);
  }

  /** Retries after a full-jitter wait from {@code backoff}, with no other guard. */
  public static PolicySpec jitter(String name, Backoff backoff) {
    return new PolicySpec(name, Double.NaN, backoff, Double.NaN, 0, null, Double.NaN, null, Double.NaN, 0);
  }

  /** This policy with a levee-core RetryBudget of {@code max} tokens earning {@code ratio} per success. */
  public PolicySpec withBudget(double max, double ratio) {
    return new PolicySpec(name, fixedDelaySeconds, backoff, max, ratio, breaker, throttleK, throttleWindow, grpcMaxTokens, grpcTokenRatio);
  }

  /** This policy behind a levee-core CircuitBreaker with {@code config}. */
  public PolicySpec withBreaker(CircuitBreakerConfig config) {
    return new PolicySpec(name, fixedDelaySeconds, backoff, budgetMax, budgetRatio, config, throttleK, throttleWindow, grpcMaxTokens, grpcTokenRatio);
  }

  /** This policy behind levee-core's AdaptiveThrottle (SRE book) with multiplier {@code k}. */
  public PolicySpec withAdaptiveThrottle(double k, Duration window) {
    return new PolicySpec(name, fixedDelaySeconds, backoff, budgetMax, budgetRatio, breaker, k, window, grpcMaxTokens, grpcTokenRatio);
  }

  /** This policy with levee-core's RetryThrottle (gRFC A6). */
  public PolicySpec withRetryThrottle(double maxTokens, double tokenRatio) {
    return new PolicySpec(name, fixedDelaySeconds, backoff, budgetMax, budgetRatio, breaker, throttleK, throttleWindow, maxTokens, tokenRatio);
  }

  public boolean hasBudget() {
    return !Double.isNaN(budgetMax);
  }

  public boolean hasAdaptiveThrottle() {
    return !Double.isNaN(throttleK);
  }

  public boolean hasRetryThrottle() {
    return !Double.isNaN(grpcMaxTokens);
  }

  /** Whether the policy reads time (a breaker or adaptive throttle), so a run must keep a clock. */
  public boolean needsClock() {
    return breaker != null || hasAdaptiveThrottle();
  }
}
