package dev.levee.core.time;

import java.time.Duration;

/**
 * Durations written for people, as log lines and reasons show them: {@code 30s}, {@code 1m30s},
 * {@code 2h}, {@code 36h}, {@code 30d}, {@code 250ms}, {@code 0s} — the units of Levee's YAML
 * config, not ISO-8601's {@code PT30S}. Sub-millisecond parts are dropped; a negative duration gets
 * a leading {@code -}.
 */
public final class Spans {

  private Spans() {}

  /**
   * {@code span} in the largest whole units that write it exactly, down to milliseconds; whole days
   * in days ({@code 30d}, as {@code queue.retention} is written), any other span from hours down
   * ({@code 36h}, not {@code 1d12h}).
   */
  public static String of(Duration span) {
    if (span.isNegative()) {
      return "-" + of(span.negated());
    }
    long millis = span.toMillis();
    if (millis == 0) {
      return "0s";
    }
    long seconds = millis / 1000;
    if (millis % 1000 != 0) {
      return hoursDown(seconds) + millis % 1000 + "ms";
    }
    return seconds % 86_400 == 0 ? seconds / 86_400 + "d" : hoursDown(seconds);
  }

  /** {@code seconds} in hours, minutes and seconds, each written only when not 0 (none: empty). */
  private static String hoursDown(long seconds) {
    StringBuilder out = new StringBuilder();
    append(out, seconds / 3600, "h");
    append(out, seconds / 60 % 60, "m");
    append(out, seconds % 60, "s");
    return out.toString();
  }

  private static void append(StringBuilder out, long amount, String unit) {
    if (amount > 0) {
      out.append(amount).append(unit);
    }
  }
}
