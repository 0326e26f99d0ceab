package dev.levee.gateway.route;

import dev.levee.anthropic.Units;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RefusalReason;
import dev.levee.core.route.Preference;
import dev.levee.core.route.RouteRequest;
import dev.levee.core.route.TaskType;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads what a request tells the router: {@code x-levee-task} (simple, complex, creative, code),
 * {@code x-levee-latency-budget} (a duration: {@code 1500ms}, {@code 5s}; a bare number is
 * milliseconds) and {@code x-levee-prefer} (cost, balanced, quality), each falling back to the
 * alias's {@link RouteDefaults}. A value that is present but not allowed is the client's mistake:
 * an Anthropic-shaped 400 {@code invalid_request_error} naming the header, never a silent default.
 */
public final class RouteHints {

  /** The task header. */
  public static final String TASK = "x-levee-task";
  /** The latency-budget header. */
  public static final String LATENCY_BUDGET = "x-levee-latency-budget";
  /** The preference header. */
  public static final String PREFER = "x-levee-prefer";

  /** The longest latency budget accepted: 10 minutes (longer says nothing a deadline does not). */
  static final Duration MAX_BUDGET = Duration.ofMinutes(10);

  /** The outcome of reading the headers. */
  public sealed interface Result permits Valid, Invalid {}

  /** The request's routing inputs. */
  public record Valid(RouteRequest request) implements Result {}

  /** A header was present but not allowed; answer {@code error} (400). */
  public record Invalid(ApiError error) implements Result {}

  private RouteHints() {}

  /**
   * @param header looks up a request header by lower-case name (null when absent)
   * @param defaults the alias's defaults
   * @param inputTokens the request's estimated input tokens ({@link InputTokens#estimate})
   */
  public static Result read(Function<String, String> header, RouteDefaults defaults, long inputTokens) {
    String task = header.apply(TASK);
    Optional<TaskType> taskType = task == null ? Optional.of(defaults.taskType()) : TaskType.parse(task);
    if (taskType.isEmpty()) {
      return invalid(TASK + ": must be simple, complex, creative or code, was '" + printable(task) + "'");
    }
    String prefer = header.apply(PREFER);
    Optional<Preference> preference = prefer == null ? Optional.of(defaults.preference()) : Preference.parse(prefer);
    if (preference.isEmpty()) {
      return invalid(PREFER + ": must be cost, balanced or quality, was '" + printable(prefer) + "'");
    }
    String budgetText = header.apply(LATENCY_BUDGET);
    Duration budget = defaults.latencyBudget();
    if (budgetText != null) {
      budget = budget(budgetText.trim());
      if (budget == null) {
        return invalid(LATENCY_BUDGET + ": must be a positive duration up to 10m such as 1500ms or 5s, was '"
            + printable(budgetText) + "'");
      }
    }
    return new Valid(new RouteRequest(taskType.get(), inputTokens, budget, preference.get()));
  }

  private static Duration budget(String text) {
    try {
      Duration value = text.chars().allMatch(Character::isDigit) && !text.isEmpty()
          ? Duration.ofMillis(Long.parseLong(text))
          : Units.duration(text);
      return value.isPositive() && value.compareTo(MAX_BUDGET) <= 0 ? value : null;
    } catch (IllegalArgumentException | ArithmeticException e) {
      return null;
    }
  }

  private static Invalid invalid(String message) {
    return new Invalid(ApiError.invalidRequest(message).because(RefusalReason.BAD_ROUTE_HINT));
  }

  /** The value as it may be echoed: at most 40 printable ASCII characters. */
  private static String printable(String value) {
    String cleaned = value.replaceAll("[^\\x20-\\x7e]", "?");
    return cleaned.length() > 40 ? cleaned.substring(0, 40) + "…" : cleaned;
  }
}
