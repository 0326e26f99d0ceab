package dev.levee.core.route;

import java.time.Duration;
import java.util.Objects;

/**
 * What the router knows of one request.
 *
 * @param task the task type (header {@code x-levee-task} or the alias's default)
 * @param inputTokens the estimated input tokens of the body (0 or more)
 * @param latencyBudget the latency the client can accept (header {@code x-levee-latency-budget}
 *     or the alias's default); positive
 * @param preference cost, balanced or quality (header {@code x-levee-prefer})
 * @throws IllegalArgumentException when {@code inputTokens} is negative or the budget not positive
 */
public record RouteRequest(TaskType task, long inputTokens, Duration latencyBudget, Preference preference) {

  public RouteRequest {
    Objects.requireNonNull(task, "task");
    Objects.requireNonNull(latencyBudget, "latencyBudget");
    Objects.requireNonNull(preference, "preference");
    if (inputTokens < 0) {
      throw new IllegalArgumentException("inputTokens must be >= 0, was " + inputTokens);
    }
    if (!latencyBudget.isPositive()) {
      throw new IllegalArgumentException("latencyBudget must be positive, was " + latencyBudget);
    }
  }
}
