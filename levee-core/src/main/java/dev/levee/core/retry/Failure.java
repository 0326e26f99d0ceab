package dev.levee.core.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A classified failed attempt.
 *
 * @param kind what the failure means (see {@link FailureKind})
 * @param status the upstream HTTP status, or 0 when no response arrived (timeout, reset, cut)
 * @param errorType the Anthropic error type ({@code overloaded_error}, ...) or a Levee word for
 *     transport failures ({@code timeout}, {@code connection_error}, {@code stream_cut}, ...)
 * @param message a short human-readable description, never containing credentials
 * @param retryAfter the wait the upstream asked for ({@code retry-after-ms} / {@code
 *     retry-after}), if any
 * @param shouldRetry the upstream's {@code x-should-retry} header, if present
 */
public record Failure(
    FailureKind kind,
    int status,
    String errorType,
    String message,
    Optional<Duration> retryAfter,
    Optional<Boolean> shouldRetry) {

  public Failure {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(errorType, "errorType");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(retryAfter, "retryAfter");
    Objects.requireNonNull(shouldRetry, "shouldRetry");
  }

  /** A failure without retry-after or x-should-retry. */
  public static Failure of(FailureKind kind, int status, String errorType, String message) {
    return new Failure(kind, status, errorType, message, Optional.empty(), Optional.empty());
  }

  /**
   * Whether the same target may be tried again: the kind's rule, overridden by the upstream's
   * {@code x-should-retry} (as the official SDKs do). A cancelled call is never retried.
   */
  public boolean mayRetrySameTarget() {
    if (kind == FailureKind.CANCELLED) {
      return false;
    }
    return shouldRetry.orElse(kind.retrySameTarget());
  }

  @Override
  public String toString() {
    return kind + (status > 0 ? " " + status : "") + " " + errorType + ": " + message;
  }
}
