package dev.levee.gateway.route;

import dev.levee.core.route.Preference;
import dev.levee.core.route.TaskType;
import java.time.Duration;

/**
 * What a routed request assumes when it states nothing: the alias's {@code route-defaults}
 * (config keys {@code task}, {@code latency-budget}, {@code prefer}).
 *
 * @param task a task type label (simple, complex, creative, code); default {@code complex}
 * @param latencyBudget default 5 s (the published example's budget)
 * @param prefer cost, balanced or quality; default {@code balanced}
 * @throws IllegalArgumentException naming the key whose value is not allowed
 */
public record RouteDefaults(String task, Duration latencyBudget, String prefer) {

  /** complex, 5 s, balanced. */
  public static final RouteDefaults DEFAULT = new RouteDefaults(null, null, null);

  public RouteDefaults {
    task = task == null ? TaskType.COMPLEX.label() : task;
    latencyBudget = latencyBudget == null ? Duration.ofSeconds(5) : latencyBudget;
    prefer = prefer == null ? Preference.BALANCED.label() : prefer;
    if (TaskType.parse(task).isEmpty()) {
      throw new IllegalArgumentException("task must be simple, complex, creative or code, was '" + task + "'");
    }
    if (!latencyBudget.isPositive()) {
      throw new IllegalArgumentException("latency-budget must be positive, was " + latencyBudget);
    }
    if (Preference.parse(prefer).isEmpty()) {
      throw new IllegalArgumentException("prefer must be cost, balanced or quality, was '" + prefer + "'");
    }
  }

  public TaskType taskType() {
    return TaskType.parse(task).orElseThrow();
  }

  public Preference preference() {
    return Preference.parse(prefer).orElseThrow();
  }
}
