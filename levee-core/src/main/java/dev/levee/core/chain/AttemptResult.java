package dev.levee.core.chain;

import dev.levee.core.retry.Failure;
import java.util.Objects;

/**
 * What one {@link Attempt} produced.
 *
 * @param <T> the protocol's response type
 */
public sealed interface AttemptResult<T> {

  /** The target answered; for a stream, it reached its commit point. */
  record Success<T>(T response) implements AttemptResult<T> {
    public Success {
      Objects.requireNonNull(response, "response");
    }
  }

  /**
   * The call failed.
   *
   * @param failure the classification
   * @param response the upstream's error response, kept to surface it unchanged; null when none
   *     arrived (timeout, reset)
   */
  record Failed<T>(Failure failure, T response) implements AttemptResult<T> {
    public Failed {
      Objects.requireNonNull(failure, "failure");
    }
  }

  static <T> AttemptResult<T> success(T response) {
    return new Success<>(response);
  }

  static <T> AttemptResult<T> failed(Failure failure, T response) {
    return new Failed<>(failure, response);
  }
}
