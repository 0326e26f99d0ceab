package dev.levee.gateway.cluster;

import dev.levee.core.time.Ticker;
import java.util.concurrent.TimeUnit;

/**
 * Which switches of a Redis link's mode get a log line: at most {@code perMinute} lines a minute
 * (the start, a real outage and its end log at once), then silence until the minute is over, when
 * one line sums up the switches not logged. A Redis answering slower than the command timeout — an
 * overloaded box — flaps the link many times a second; every switch is still counted on
 * {@code /health} and in {@code levee_cluster_switches_total}. Thread-safe.
 */
final class SwitchLines {

  private static final long MINUTE_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final Ticker ticker;
  private final int perMinute;
  private long minuteBegan;
  private int lines;
  private long switchesLogged = -1; // the switch count at the last line; -1 before the first

  SwitchLines(Ticker ticker, int perMinute) {
    this.ticker = ticker;
    this.perMinute = perMinute;
    this.minuteBegan = ticker.nanos();
  }

  /**
   * Whether a line is due now, and what to add to it.
   *
   * @param switched whether the mode just switched (else only a summary may be due)
   * @param switches every switch so far
   * @return null when no line is due; else {@code ""}, or {@code " (N switches since the last
   *     line)"} when switches went unlogged
   */
  synchronized String due(boolean switched, long switches) {
    long now = ticker.nanos();
    if (now - minuteBegan >= MINUTE_NANOS) {
      minuteBegan = now;
      lines = 0;
    }
    if (lines == perMinute || (!switched && switches == switchesLogged)) {
      return null;
    }
    long unlogged = switches - switchesLogged;
    lines++;
    String note = switchesLogged >= 0 && unlogged > 1 ? " (" + unlogged + " switches since the last line)" : "";
    switchesLogged = switches;
    return note;
  }
}
