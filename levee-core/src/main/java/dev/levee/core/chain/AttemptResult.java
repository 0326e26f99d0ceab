package dev.levee.core.chain;

import dev.levee.core.retry.Failure;
import java.time.Duration;
import java.util.Objects;

/**
 * What one {@link Attempt} produced.
 *
 * @param <T> the protocol's response type
 */
public sealed interface AttemptResult<T> {

  /**
   * The target answered; for a stream, it reached its commit point.
   *
   * @param firstToken whether the time to this result is a time to first token (a stream at its
   *     commit point) rather than a whole answer's, whose length sets it (see {@link
   *     CallObserver#onSuccess(Target, Duration, boolean)})
   */
  record Success<T>(T response, boolean firstToken) implements AttemptResult<T> {
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

  /** A whole answer (JSON): the time to it depends on its length. */
  static <T> AttemptResult<T> success(T response) {
    return new Success<>(response, false);
  }

  /** A stream at its commit point: the time to it is a time to first token. */
  static <T> AttemptResult<T> streaming(T response) {
    return new Success<>(response, true);
  }

  static <T> AttemptResult<T> failed(Failure failure, T response) {
    return new Failed<>(failure, response);
  }
}
