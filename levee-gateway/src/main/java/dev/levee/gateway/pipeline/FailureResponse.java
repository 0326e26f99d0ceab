package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.TargetReports;
import dev.levee.anthropic.ratelimit.RateLimitHeaders;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.retry.Failure;
import dev.levee.core.chain.Target;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
 * @param rateLimits the upstream's {@code anthropic-ratelimit-*} headers to send with a final
 *     429 (lower-case names to values, in the upstream's order; see {@link #rateLimits(int,
 *     Reply)}); empty for every other answer
 */
record FailureResponse(ApiError error, Optional<Duration> retryAfter, String reason, Target refused,
    Map<String, List<String>> rateLimits) {

  FailureResponse {
    rateLimits = Collections.unmodifiableMap(new LinkedHashMap<>(rateLimits));
  }

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

  /**
   * The headers a client paces on, when the answer is the upstream's rate limit: a final {@code
   * status} 429 that the chain's last failed answer decided ({@code decided}, the response of
   * {@link ChainResult.Exhausted#lastFailure}), whatever target gave it — the first, a fallback,
   * or the last of mixed ones, as {@code x-levee-model} names it — since a client asking again is
   * paced by that limit. Only the {@code anthropic-ratelimit-*} headers (requests, tokens,
   * input-tokens, output-tokens: limit, remaining, reset; <a
   * href="https://docs.anthropic.com/en/api/rate-limits#response-headers">Anthropic: rate limits,
   * response headers</a>) are taken, as the upstream sent them: never its {@code retry-after} (the
   * responder's is Levee's, from every target's stated wait and open circuit), its credentials or
   * hop-by-hop headers. Empty when the status is not 429, when Levee refused by itself (pacing, a
   * cooldown: no upstream answer, so nothing is made up) or when the 429 came from a stream's
   * in-band error (its head was a 200's).
   */
  static Map<String, List<String>> rateLimits(int status, Reply decided) {
    if (status != 429 || decided == null || decided.status() != 429) {
      return Map.of();
    }
    Map<String, List<String>> carried = new LinkedHashMap<>();
    decided.headers().forEach((name, values) -> {
      String lower = name.toLowerCase(Locale.ROOT);
      if (lower.startsWith(RateLimitHeaders.PREFIX) && lower.length() > RateLimitHeaders.PREFIX.length()) {
        carried.put(lower, values);
      }
    });
    return carried;
  }

  static FailureResponse of(ChainResult.Exhausted<Reply> exhausted) {
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
    return new FailureResponse(error, exhausted.retryAfter(), reason, lastRefused(exhausted.targets()),
        rateLimits(error.status(), exhausted.lastResponse()));
  }
}
