package dev.levee.core.time;

import java.time.Duration;

/**
 * Durations written for people, as log lines and reasons show them: {@code 30s}, {@code 1m30s},
 * {@code 2h}, {@code 250ms}, {@code 0s} — the units of Levee's YAML config, not ISO-8601's
 * {@code PT30S}. Sub-millisecond parts are dropped; a negative duration gets a leading {@code -}.
 */
public final class Spans {

  private Spans() {}

  /** {@code span} in the largest whole units that write it exactly, down to milliseconds. */
  public static String of(Duration span) {
    if (span.isNegative()) {
      return "-" + of(span.negated());
    }
    long millis = span.toMillis();
    if (millis == 0) {
      return "0s";
    }
    if (millis % 1000 != 0) {
      return millis < 1000 ? millis + "ms" : of(Duration.ofSeconds(millis / 1000)) + (millis % 1000) + "ms";
    }
    long seconds = millis / 1000;
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
