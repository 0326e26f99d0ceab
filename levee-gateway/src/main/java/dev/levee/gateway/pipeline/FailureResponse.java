package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.TargetReports;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.retry.Failure;
import java.time.Duration;
import java.util.Optional;

/**
 * The single error a client gets when every target is exhausted: Anthropic-shaped, with the
 * last upstream status — or 503 when every circuit is open — a message listing how each target
 * ended, and the earliest useful {@code retry-after}.
 */
record FailureResponse(ApiError error, Optional<Duration> retryAfter, String reason) {

  static FailureResponse of(ChainResult.Exhausted<?> exhausted) {
    String reason = TargetReports.describe(exhausted.targets()); // core reports facts; these are the words
    ApiError error;
    Failure last = exhausted.lastFailure();
    if (exhausted.allOpen()) {
      error = new ApiError(503, "overloaded_error", "Every target is unavailable (circuit open). " + reason);
    } else if (last == null) {
      error = new ApiError(504, "timeout_error", "No target could be tried within the deadline. " + reason);
    } else {
      error = ApiError.of(last, "All targets failed. " + reason
          + (last.message().isEmpty() ? "" : ". Last error: " + last.message()));
    }
    return new FailureResponse(error, exhausted.retryAfter(), reason);
  }
}
