package dev.levee.core.tier;

import java.util.Objects;

/**
 * The numbers a {@link TierDecider} applies; immutable, one per feature (so a critical feature
 * can be given more patience than an optional one). Defaults, from issue 4 unless noted:
 *
 * <table>
 *   <caption>defaults</caption>
 *   <tr><th>rule</th><th>parameter</th><th>default</th></tr>
 *   <tr><td>burn: to {@code burnTier}, optional features to {@code optionalBurnTier}</td>
 *       <td>{@code burnThreshold}, both 1 h and 5 min windows (SRE workbook ch. 5)</td><td>14.4</td></tr>
 *   <tr><td>one step down</td><td>{@code serverErrorDown} (share of 5xx, 529 included)</td><td>0.02</td></tr>
 *   <tr><td>one step down</td><td>{@code rateLimitedDown} (share of 429)</td><td>0.05</td></tr>
 *   <tr><td>one step down</td><td>{@code p99DownMillis}</td><td>800 ms</td></tr>
 *   <tr><td>healthy (all four)</td><td>{@code healthyP99Millis}, {@code healthyServerErrorShare},
 *       {@code healthyRateLimitedShare}, {@code healthyBurn} (short window only: the multiwindow
 *       alert resets on its short window, SRE workbook ch. 5)</td><td>500 ms, 0.005, 0.01, 14.4</td></tr>
 *   <tr><td>evidence (Levee's choice)</td><td>{@code minRequests}: fewer calls than this in a
 *       window make its shares too noisy to step down on</td><td>20</td></tr>
 *   <tr><td>reach of the signal rules (Levee's choice)</td><td>{@code signalFloor}</td><td>T2</td></tr>
 *   <tr><td>reach of the signal rules while the clients are answered (issue 10)</td>
 *       <td>{@code answeredSignalFloor}: an absorbed fault (retries or fallbacks answer) takes a
 *       feature to the reduced target at most</td><td>T1</td></tr>
 *   <tr><td>burn targets</td><td>{@code burnTier}, {@code optionalBurnTier}</td><td>T2, T3</td></tr>
 * </table>
 *
 * <p>Shares are fractions in [0, 1], not percentages.
 */
public record TierThresholds(
    double burnThreshold,
    Tier burnTier,
    Tier optionalBurnTier,
    double serverErrorDown,
    double rateLimitedDown,
    double p99DownMillis,
    Tier signalFloor,
    double healthyP99Millis,
    double healthyServerErrorShare,
    double healthyRateLimitedShare,
    double healthyBurn,
    long minRequests,
    Tier answeredSignalFloor) {

  /** The defaults listed above. */
  public static final TierThresholds DEFAULT = new TierThresholds(
      14.4, Tier.T2, Tier.T3, 0.02, 0.05, 800, Tier.T2, 500, 0.005, 0.01, 14.4, 20, Tier.T1);

  /** Thresholds whose signal rules reach {@code signalFloor} whether or not the clients are answered. */
  public TierThresholds(double burnThreshold, Tier burnTier, Tier optionalBurnTier, double serverErrorDown,
      double rateLimitedDown, double p99DownMillis, Tier signalFloor, double healthyP99Millis,
      double healthyServerErrorShare, double healthyRateLimitedShare, double healthyBurn, long minRequests) {
    this(burnThreshold, burnTier, optionalBurnTier, serverErrorDown, rateLimitedDown, p99DownMillis, signalFloor,
        healthyP99Millis, healthyServerErrorShare, healthyRateLimitedShare, healthyBurn, minRequests, signalFloor);
  }

  /**
   * @throws IllegalArgumentException when a share is outside [0, 1], a number is negative, or a
   *     healthy share or latency bound is not below its step-down bound (the band between them
   *     is where the decider holds). {@code healthyBurn} may be {@code Double.POSITIVE_INFINITY}
   *     to let a feature step up whatever the burn (see {@link TierDecider} on recovery time).
   */
  public TierThresholds {
    Objects.requireNonNull(burnTier, "burnTier");
    Objects.requireNonNull(optionalBurnTier, "optionalBurnTier");
    Objects.requireNonNull(signalFloor, "signalFloor");
    Objects.requireNonNull(answeredSignalFloor, "answeredSignalFloor");
    if (answeredSignalFloor.isBelow(signalFloor)) {
      throw new IllegalArgumentException("answeredSignalFloor (" + answeredSignalFloor + ") must not be below signalFloor ("
          + signalFloor + ")");
    }
    share("serverErrorDown", serverErrorDown);
    share("rateLimitedDown", rateLimitedDown);
    share("healthyServerErrorShare", healthyServerErrorShare);
    share("healthyRateLimitedShare", healthyRateLimitedShare);
    positive("burnThreshold", burnThreshold);
    positive("p99DownMillis", p99DownMillis);
    positive("healthyP99Millis", healthyP99Millis);
    positive("healthyBurn", healthyBurn);
    if (minRequests < 0) throw new IllegalArgumentException("minRequests must be non-negative, was " + minRequests);
    below("healthyServerErrorShare", healthyServerErrorShare, "serverErrorDown", serverErrorDown);
    below("healthyRateLimitedShare", healthyRateLimitedShare, "rateLimitedDown", rateLimitedDown);
    below("healthyP99Millis", healthyP99Millis, "p99DownMillis", p99DownMillis);
  }

  /** The tier the burn rule sends a feature of {@code priority} to. */
  public Tier burnTier(Priority priority) {
    return priority == Priority.OPTIONAL ? optionalBurnTier : burnTier;
  }

  public TierThresholds withBurnThreshold(double value) {
    return new TierThresholds(value, burnTier, optionalBurnTier, serverErrorDown, rateLimitedDown, p99DownMillis,
        signalFloor, healthyP99Millis, healthyServerErrorShare, healthyRateLimitedShare, healthyBurn, minRequests,
        answeredSignalFloor);
  }

  /** These thresholds with another minimum volume ({@code tiers.min-volume}): calls a window needs before any step down. */
  public TierThresholds withMinRequests(long value) {
    return new TierThresholds(burnThreshold, burnTier, optionalBurnTier, serverErrorDown, rateLimitedDown,
        p99DownMillis, signalFloor, healthyP99Millis, healthyServerErrorShare, healthyRateLimitedShare, healthyBurn,
        value, answeredSignalFloor);
  }

  /**
   * These thresholds with other latency bounds ({@code tiers.p99-down}, {@code tiers.healthy-p99}),
   * in milliseconds.
   *
   * @throws IllegalArgumentException when either is not positive or {@code healthyMillis} is not
   *     below {@code downMillis}
   */
  public TierThresholds withP99(double downMillis, double healthyMillis) {
    return new TierThresholds(burnThreshold, burnTier, optionalBurnTier, serverErrorDown, rateLimitedDown,
        downMillis, signalFloor, healthyMillis, healthyServerErrorShare, healthyRateLimitedShare, healthyBurn,
        minRequests, answeredSignalFloor);
  }

  public TierThresholds withHealthyBurn(double value) {
    return new TierThresholds(burnThreshold, burnTier, optionalBurnTier, serverErrorDown, rateLimitedDown,
        p99DownMillis, signalFloor, healthyP99Millis, healthyServerErrorShare, healthyRateLimitedShare, value,
        minRequests, answeredSignalFloor);
  }

  /** These thresholds with another signal floor; the answered floor is raised to it if it was lower. */
  public TierThresholds withSignalFloor(Tier value) {
    return new TierThresholds(burnThreshold, burnTier, optionalBurnTier, serverErrorDown, rateLimitedDown,
        p99DownMillis, value, healthyP99Millis, healthyServerErrorShare, healthyRateLimitedShare, healthyBurn,
        minRequests, answeredSignalFloor.isBelow(value) ? value : answeredSignalFloor);
  }

  public TierThresholds withAnsweredSignalFloor(Tier value) {
    return new TierThresholds(burnThreshold, burnTier, optionalBurnTier, serverErrorDown, rateLimitedDown,
        p99DownMillis, signalFloor, healthyP99Millis, healthyServerErrorShare, healthyRateLimitedShare, healthyBurn,
        minRequests, value);
  }

  private static void share(String name, double value) {
    if (!(value >= 0 && value <= 1)) throw new IllegalArgumentException(name + " must be a share in [0, 1], was " + value);
  }

  private static void positive(String name, double value) {
    if (!(value > 0)) throw new IllegalArgumentException(name + " must be positive, was " + value);
  }

  private static void below(String healthyName, double healthy, String downName, double down) {
    if (!(healthy < down)) {
      throw new IllegalArgumentException(healthyName + " (" + healthy + ") must be below " + downName + " (" + down + ")");
    }
  }
}
