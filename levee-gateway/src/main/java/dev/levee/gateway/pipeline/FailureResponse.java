package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.TargetReports;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.retry.Failure;
import dev.levee.core.chain.Target;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The single error a client gets when every target is exhausted: Anthropic-shaped, with the
 * last upstream status — or 503 when every circuit is open — a message listing how each target
 * ended, and the earliest useful {@code retry-after} (sent with {@code x-should-retry: false}: an
 * SDK does not resend it, see {@link LeveeHeaders#SHOULD_RETRY}).
 *
 * @param refused the target {@code x-levee-model} names: the last one whose call failed, or,
 *     when none was called (circuits open, cooling, budget, deadline), the chain's last target;
 *     null only for a chain without targets
 */
record FailureResponse(ApiError error, Optional<Duration> retryAfter, String reason, Target refused) {

  /** The target that refused last (see {@link FailureResponse}), or null when there is none. */
  static Target lastRefused(List<ChainResult.TargetReport> reports) {
    Target last = null;
    Target lastFailed = null;
    for (ChainResult.TargetReport report : reports) {
      last = report.target();
      if (report.why() == ChainResult.Why.FAILED) {
        lastFailed = report.target();
      }
    }
    return lastFailed != null ? lastFailed : last;
  }

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
    return new FailureResponse(error, exhausted.retryAfter(), reason, lastRefused(exhausted.targets()));
  }
}
