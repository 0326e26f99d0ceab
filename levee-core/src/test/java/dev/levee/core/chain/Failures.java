package dev.levee.core.chain;

import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import java.time.Duration;
import java.util.Optional;

/** Classified failures as the protocol layer would hand them to the chain. */
final class Failures {

  private Failures() {}

  static Failure overloaded() {
    return Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "Overloaded");
  }

  static Failure serverError() {
    return Failure.of(FailureKind.SERVER_ERROR, 500, "api_error", "Internal server error");
  }

  static Failure timeout() {
    return Failure.of(FailureKind.TIMEOUT, 0, "timeout", "no answer within the attempt timeout");
  }

  static Failure rateLimited(Duration retryAfter) {
    return new Failure(FailureKind.RATE_LIMITED, 429, "rate_limit_error", "Rate limited",
        Optional.of(retryAfter), Optional.empty());
  }

  static Failure spendLimit() {
    return Failure.of(FailureKind.SPEND_LIMIT, 429, "rate_limit_error", "You have reached your spend limit");
  }

  static Failure badRequest() {
    return Failure.of(FailureKind.CLIENT_ERROR, 400, "invalid_request_error", "max_tokens: field required");
  }

  static Failure unauthorized() {
    return Failure.of(FailureKind.CREDENTIALS, 401, "authentication_error", "invalid x-api-key");
  }

  static Failure cancelled() {
    return Failure.of(FailureKind.CANCELLED, 0, "cancelled", "client went away");
  }

  /** {@code failure} with the upstream's {@code x-should-retry} header. */
  static Failure withShouldRetry(Failure failure, boolean shouldRetry) {
    return new Failure(failure.kind(), failure.status(), failure.errorType(), failure.message(),
        failure.retryAfter(), Optional.of(shouldRetry));
  }
}
