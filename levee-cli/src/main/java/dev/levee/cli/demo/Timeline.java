package dev.levee.cli.demo;

import java.util.Locale;

/**
 * The demo's per-second table: one row as each second ends, then a row {@code later} with what
 * was counted after its second's row was printed (answers still in flight when the drill's last
 * second ended, and any that finished as their row was being printed), so that every count column
 * sums to the summary's totals (newcomer trial, session 12: on a starved machine the fallback
 * column summed to 57 while the summary said 154 answered by the fallback). Not thread-safe: one
 * printing thread.
 */
final class Timeline {

  /** The header of the table's columns. */
  static final String HEADER =
      "    t | sent | primary fallback failed | tier circuit    budget calls || without: ok failed calls";

  /**
   * The count columns of one row (or the totals), in the order printed.
   *
   * @param calls upstream calls with Levee
   * @param baselineAnswered answers without Levee
   * @param baselineFailed failures without Levee
   * @param baselineCalls upstream calls without Levee
   */
  record Counts(int sent, int primary, int fallback, int failed, int calls, int baselineAnswered, int baselineFailed,
      int baselineCalls) {

    static final Counts ZERO = new Counts(0, 0, 0, 0, 0, 0, 0, 0);

    Counts plus(Counts o) {
      return new Counts(sent + o.sent, primary + o.primary, fallback + o.fallback, failed + o.failed, calls + o.calls,
          baselineAnswered + o.baselineAnswered, baselineFailed + o.baselineFailed, baselineCalls + o.baselineCalls);
    }

    Counts minus(Counts o) {
      return new Counts(sent - o.sent, primary - o.primary, fallback - o.fallback, failed - o.failed, calls - o.calls,
          baselineAnswered - o.baselineAnswered, baselineFailed - o.baselineFailed, baselineCalls - o.baselineCalls);
    }
  }

  private Counts printed = Counts.ZERO;

  /**
   * The row of {@code second} as it ends (with a line break).
   *
   * @param tier the default feature's tier, e.g. {@code T1}
   * @param circuit the primary's circuit, e.g. {@code OPEN}
   * @param budget retry-budget tokens left
   */
  String row(int second, Counts counts, String tier, String circuit, double budget) {
    printed = printed.plus(counts);
    return String.format(Locale.ROOT, "%4ds | %4d | %7d %8d %6d | %-4s %-9s %6.1f %5d || %13d %6d %5d%n", second,
        counts.sent(), counts.primary(), counts.fallback(), counts.failed(), tier, circuit, budget, counts.calls(),
        counts.baselineAnswered(), counts.baselineFailed(), counts.baselineCalls());
  }

  /**
   * The last row, {@code later}: {@code totals} less what the rows printed so far showed (with a
   * line break). Its state columns are blank: it covers no one second.
   */
  String later(Counts totals) {
    Counts rest = totals.minus(printed);
    printed = totals;
    return String.format(Locale.ROOT, "later | %4d | %7d %8d %6d | %-4s %-9s %6s %5d || %13d %6d %5d%n", rest.sent(),
        rest.primary(), rest.fallback(), rest.failed(), "", "", "", rest.calls(), rest.baselineAnswered(),
        rest.baselineFailed(), rest.baselineCalls());
  }
}
