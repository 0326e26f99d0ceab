package dev.levee.anthropic.error;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads the wait an upstream asks for: {@code retry-after-ms} (milliseconds, Anthropic's
 * extension) first, then {@code retry-after} as seconds (fractional allowed) or an HTTP date
 * (RFC 9110 §10.2.3). Unparseable or negative values are ignored; a date in the past is a zero
 * wait.
 */
public final class RetryAfter {

  private RetryAfter() {}

  /**
   * @param header looks up a response header by lower-case name (null when absent)
   * @param wallClock the current time, for HTTP dates
   */
  public static Optional<Duration> parse(Function<String, String> header, InstantSource wallClock) {
    Optional<Duration> ms = millis(header.apply("retry-after-ms"));
    return ms.isPresent() ? ms : retryAfter(header.apply("retry-after"), wallClock);
  }

  private static Optional<Duration> millis(String value) {
    Double number = number(value);
    return number == null ? Optional.empty() : Optional.of(Duration.ofNanos((long) (number * 1_000_000)));
  }

  private static Optional<Duration> retryAfter(String value, InstantSource wallClock) {
    if (value == null) {
      return Optional.empty();
    }
    Double seconds = number(value);
    if (seconds != null) {
      return Optional.of(Duration.ofNanos((long) (seconds * 1_000_000_000)));
    }
    try {
      Instant at = ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration wait = Duration.between(wallClock.instant(), at);
      return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  private static Double number(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    try {
      double d = Double.parseDouble(value.trim());
      return Double.isFinite(d) && d >= 0 && d < 1e9 ? d : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Formats a wait as a whole number of seconds for a {@code retry-after} header, at least 1. */
  public static String seconds(Duration wait) {
    long millis = wait.toMillis();
    return Long.toString(Math.max(1, (millis + 999) / 1000));
  }
}
