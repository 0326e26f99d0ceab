package dev.levee.gateway.route;

import dev.levee.core.chain.Target;
import java.time.Duration;
import java.util.List;

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
  record Refuse(Target target, Duration retryAfter) implements Paced {}
}
