package dev.levee.anthropic.ratelimit;

import dev.levee.core.route.RateLimitReading;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads an upstream answer's rate-limit headers into a {@link RateLimitReading} for pacing:
 * {@code anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-remaining} (a
 * non-negative integer) and {@code ...-reset} (an RFC 3339 date-time, when the bucket is full
 * again), as the Anthropic docs describe them (<a
 * href="https://platform.claude.com/docs/en/api/rate-limits#response-headers">Rate limits →
 * Response headers</a>). Every answer carries them, successes and 429s alike.
 *
 * <p>A bucket is read only when both its headers are present and valid; a negative, fractional or
 * unparseable value, or a reset without a date-time, leaves that bucket out (never an exception:
 * a quirky header must not fail a good answer). A reset in the past becomes a zero wait.
 */
public final class RateLimitHeaders {

  /** What every rate-limit header's name starts with, lower-case. */
  public static final String PREFIX = "anthropic-ratelimit-";

  private RateLimitHeaders() {}

  /**
   * @param header looks up a response header by lower-case name (null when absent)
   * @param wallClock the current time, to turn reset date-times into waits
   */
  public static RateLimitReading parse(Function<String, String> header, InstantSource wallClock) {
    Instant now = wallClock.instant();
    return new RateLimitReading(bucket(header, REQUESTS, now), bucket(header, TOKENS, now),
        bucket(header, INPUT_TOKENS, now), bucket(header, OUTPUT_TOKENS, now));
  }

  /** A bucket's two header names, built once (every upstream answer is read). */
  private record Names(String remaining, String reset) {
    Names(String bucket) {
      this(PREFIX + bucket + "-remaining", PREFIX + bucket + "-reset");
    }
  }

  private static final Names REQUESTS = new Names("requests");
  private static final Names TOKENS = new Names("tokens");
  private static final Names INPUT_TOKENS = new Names("input-tokens");
  private static final Names OUTPUT_TOKENS = new Names("output-tokens");

  private static Optional<RateLimitReading.Bucket> bucket(Function<String, String> header, Names names, Instant now) {
    Long remaining = count(header.apply(names.remaining()));
    Instant reset = instant(header.apply(names.reset()));
    if (remaining == null || reset == null) {
      return Optional.empty();
    }
    Duration wait = Duration.between(now, reset);
    return Optional.of(new RateLimitReading.Bucket(remaining, wait.isNegative() ? Duration.ZERO : wait));
  }

  private static Long count(String value) {
    if (value == null) {
      return null;
    }
    try {
      long count = Long.parseLong(value.trim());
      return count < 0 ? null : count;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static Instant instant(String value) {
    if (value == null) {
      return null;
    }
    try {
      return OffsetDateTime.parse(value.trim()).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
