package dev.levee.core.route;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The rate-limit state one upstream answer reported, from its {@code
 * anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{remaining,reset}} headers
 * (parsed in levee-anthropic; see the Anthropic docs, <a
 * href="https://platform.claude.com/docs/en/api/rate-limits#response-headers">Rate limits →
 * Response headers</a>). A bucket the answer did not report (or reported unreadably) is empty.
 *
 * <p>Resets are durations from the moment the answer arrived, not wall-clock instants, so that
 * levee-core can place them on its own ticker.
 *
 * @param requests the requests bucket
 * @param tokens the most restrictive token bucket (input and output combined)
 * @param inputTokens the input-token bucket
 * @param outputTokens the output-token bucket
 */
public record RateLimitReading(Optional<Bucket> requests, Optional<Bucket> tokens, Optional<Bucket> inputTokens,
    Optional<Bucket> outputTokens) {

  /** An answer without rate-limit headers. */
  public static final RateLimitReading NONE =
      new RateLimitReading(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

  public RateLimitReading {
    Objects.requireNonNull(requests, "requests");
    Objects.requireNonNull(tokens, "tokens");
    Objects.requireNonNull(inputTokens, "inputTokens");
    Objects.requireNonNull(outputTokens, "outputTokens");
  }

  /** Whether the answer reported no bucket at all. */
  public boolean isEmpty() {
    return requests.isEmpty() && tokens.isEmpty() && inputTokens.isEmpty() && outputTokens.isEmpty();
  }

  /**
   * One bucket.
   *
   * @param remaining what is left (requests or tokens), 0 or more
   * @param untilReset how long until the bucket is full again, zero or more
   */
  public record Bucket(long remaining, Duration untilReset) {

    public Bucket {
      Objects.requireNonNull(untilReset, "untilReset");
      if (remaining < 0 || untilReset.isNegative()) {
        throw new IllegalArgumentException("remaining and untilReset must not be negative: " + remaining + ", " + untilReset);
      }
    }
  }
}
