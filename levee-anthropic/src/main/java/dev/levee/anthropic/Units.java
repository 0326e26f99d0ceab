package dev.levee.anthropic;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the durations ({@code 500ms}, {@code 30s}, {@code 1.5s}, {@code 2m}, {@code 1h}, {@code 29d},
 * {@code 1h30m}) and sizes ({@code 32MiB}, {@code 512KB}, {@code 1048576}) that Levee's config files,
 * command line, admin API and emulator scenarios accept: one grammar everywhere, which reads back
 * every duration Levee writes ({@code dev.levee.core.time.Spans}).
 */
public final class Units {

  private static final String NUMBER = "\\d+(?:\\.\\d+)?";
  /** One number with its unit; a duration is one or more of them in a row ({@code 1h30m}). */
  private static final Pattern PART = Pattern.compile("(" + NUMBER + ")\\s*(ms|s|m|h|d)");
  private static final Pattern DURATION = Pattern.compile("(?:" + PART.pattern() + ")+");
  private static final Pattern BARE = Pattern.compile(NUMBER);
  /** Parts followed by a number without its unit ({@code 1h30}). */
  private static final Pattern UNITLESS_TAIL = Pattern.compile(DURATION.pattern() + "\\s*" + NUMBER);
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KB|KiB|MB|MiB|GB|GiB)?");

  private Units() {}

  /**
   * A duration with its unit: {@code ms}, {@code s}, {@code m}, {@code h} or {@code d} (24 hours);
   * fractions allowed. Several in a row add up ({@code 1h30m}, {@code 1s500ms}), largest unit first
   * and each unit once ({@code 30m1h} and {@code 1h1h} are refused), as Levee's own messages write a
   * duration ({@code Spans}), so what Levee prints can be pasted back.
   *
   * @throws IllegalArgumentException if {@code text} is not such a duration
   */
  public static Duration duration(String text) {
    return duration(text, false);
  }

  /**
   * Like {@link #duration(String)}, but a bare number counts as seconds ({@code 30} is 30 s).
   *
   * @throws IllegalArgumentException if {@code text} is not such a duration
   */
  public static Duration durationOrSeconds(String text) {
    return duration(text, true);
  }

  private static Duration duration(String text, boolean bareIsSeconds) {
    String trimmed = text.trim();
    boolean negative = trimmed.startsWith("-");
    String unsigned = negative ? trimmed.substring(1) : trimmed;
    boolean bare = BARE.matcher(unsigned).matches();
    if (negative && (bare || DURATION.matcher(unsigned).matches())) {
      throw new IllegalArgumentException("a duration cannot be negative, got '" + text + "'");
    }
    if (bare ? !bareIsSeconds : !DURATION.matcher(trimmed).matches()) {
      throw notADuration(text, UNITLESS_TAIL.matcher(trimmed).matches() ? ": its last number has no unit" : "");
    }
    double millis = 0;
    int previous = Integer.MAX_VALUE; // the unit before, as a number of milliseconds
    Matcher part = PART.matcher(bare ? trimmed + "s" : trimmed); // a bare number is seconds
    while (part.find()) {
      int unit = switch (part.group(2)) {
        case "ms" -> 1;
        case "s" -> 1_000;
        case "m" -> 60_000;
        case "h" -> 3_600_000;
        default -> 86_400_000;
      };
      if (unit >= previous) {
        throw notADuration(text, ": units go largest first, each once");
      }
      previous = unit;
      millis += Double.parseDouble(part.group(1)) * unit;
    }
    return Duration.ofNanos(Math.round(millis * 1_000_000));
  }

  private static IllegalArgumentException notADuration(String text, String why) {
    return new IllegalArgumentException(
        "expected a duration such as 500ms, 30s, 2m, 1h, 7d or 1h30m, got '" + text + "'" + why);
  }

  /**
   * A size in bytes: a plain number, or one with {@code B}, {@code KB}/{@code KiB}, {@code MB}/{@code
   * MiB} or {@code GB}/{@code GiB} (decimal and binary multiples).
   *
   * @throws IllegalArgumentException if {@code text} is not such a size
   * @throws ArithmeticException if the size does not fit in a {@code long}
   */
  public static long bytes(String text) {
    Matcher m = SIZE.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("expected a size such as 32MiB, 512KiB or 1048576, got '" + text + "'");
    }
    long amount = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "B" : m.group(2);
    long factor = switch (unit.toUpperCase(Locale.ROOT)) {
      case "KB" -> 1_000L;
      case "KIB" -> 1L << 10;
      case "MB" -> 1_000_000L;
      case "MIB" -> 1L << 20;
      case "GB" -> 1_000_000_000L;
      case "GIB" -> 1L << 30;
      default -> 1L;
    };
    return Math.multiplyExact(amount, factor);
  }
}
