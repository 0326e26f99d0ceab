package dev.levee.core.slo;

/**
 * Error-budget burn over the two windows of the SRE workbook's fast-burn alert (ch. 5, "Alerting
 * on SLOs", multiwindow multi-burn-rate alerts): a long window of 1 h and a short one of 5 min.
 *
 * <p>A burn rate of 1 spends the error budget exactly over the SLO period; 14.4 over 1 h spends
 * 2% of a 30-day budget. The long window says the problem is big enough to matter, the short one
 * that it is still happening: a condition "burn at or above X" holds only when <em>both</em>
 * windows are at or above X (see {@link #bothAtLeast(double)}).
 *
 * @param burn1h burn rate over the long window (0 when it saw no calls)
 * @param burn5m burn rate over the short window (0 when it saw no calls)
 * @param requests5m calls that count for the SLO inside the short window (successes and
 *     failures, pro-rated at the window's oldest edge), the evidence behind {@code burn5m}
 */
public record BurnRates(double burn1h, double burn5m, long requests5m) {

  /** No calls at all: no burn. */
  public static final BurnRates NONE = new BurnRates(0, 0, 0);

  public BurnRates {
    if (!(burn1h >= 0) || !(burn5m >= 0)) {
      throw new IllegalArgumentException("burn rates must be non-negative numbers: " + burn1h + ", " + burn5m);
    }
    if (requests5m < 0) throw new IllegalArgumentException("requests5m must be non-negative: " + requests5m);
  }

  /** Whether both windows burn at {@code threshold} or faster: the multiwindow condition. */
  public boolean bothAtLeast(double threshold) {
    return burn1h >= threshold && burn5m >= threshold;
  }
}
