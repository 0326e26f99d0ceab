package dev.levee.gateway.route;

import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** What pacing made of a routed request's order ({@link ScoreRouting#pace}). */
public sealed interface Paced {

  /**
   * Go upstream in this order.
   *
   * @param targets the request's chain: the first target whose rate limit covers it (reserved),
   *     the other candidates, then the excluded targets
   * @param waited how long the request waited for its only candidate's rate limit to reset
   */
  record Go(List<Target> targets, Duration waited) implements Paced {
    public Go {
      targets = List.copyOf(targets);
    }
  }

  /**
   * No candidate's rate limit covers the request, and the earliest reset does not fit the
   * deadline: answer 429 with {@code retry-after} at once, without spending an attempt.
   *
   * @param target the target whose limit resets first
   * @param retryAfter the time until then
   */
  record Refuse(Target target, Duration retryAfter) implements Paced {

    /**
     * The refusal as the chain's "exhausted" result: 429 {@code rate_limit_error} with {@code
     * retry-after}, the target reported as waiting ({@code COOLING}) for {@code retryAfter}.
     */
    public <T> ChainResult<T> result() {
      long seconds = Math.max(1, (retryAfter.toMillis() + 999) / 1000);
      Failure failure = new Failure(FailureKind.RATE_LIMITED, 429, "rate_limit_error",
          "No target's rate limit covers this request before its reset (" + seconds
              + " s); the wait does not fit the deadline", Optional.of(retryAfter), Optional.of(false));
      return new ChainResult.Exhausted<>(failure, null, Optional.of(retryAfter), false,
          List.of(new ChainResult.TargetReport(target, ChainResult.Why.COOLING, 0, null, retryAfter)), List.of());
    }
  }
}
