package dev.levee.core.tier;

import dev.levee.core.sli.SliSnapshot;
import dev.levee.core.slo.BurnRates;
import dev.levee.core.slo.SloTracker;
import java.util.Objects;

/**
 * What the {@link TierDecider} looks at: one reading of a feature's SLIs and error-budget burn.
 *
 * <p>Two sources meet here (issue 10, "health has a scope"): the <b>signals</b> ({@code
 * p99Millis}, {@code serverErrorShare}, {@code rateLimitedShare}, {@code requests}) read the
 * upstream <em>API calls</em> of the targets the feature's alias uses; the <b>burn</b> and {@code
 * clientFailureShare} read what the feature's <em>clients</em> saw (a request answered by a retry or
 * a fallback is a success for them).
 *
 * @param p99Millis 99th percentile latency of successful calls over the SLI window, ms (time to
 *     first token for streams, total time for JSON); in a {@link #scoped} reading the higher of the calls'
 *     and the clients' p99 (a request answered after a retry still counts its whole latency); 0
 *     when there were none
 * @param serverErrorShare share of calls failed by the target (5xx, 529, timeouts), 0..1
 * @param rateLimitedShare share of calls answered 429, 0..1
 * @param requests calls behind the shares (the SLI window's {@link SliSnapshot#total()})
 * @param burn1h error-budget burn over the last hour
 * @param burn5m error-budget burn over the last 5 minutes
 * @param burnRequests calls behind {@code burn5m}; the burn rule needs enough of them
 * @param clientFailureShare share of the clients' requests that got no answer from a target over
 *     the SLI window, 0..1: the clients are "being answered" while it stays below the 5xx
 *     step-down share (see {@link TierThresholds#answeredSignalFloor()})
 * @param source what the signals read, for explanations (e.g. the target with the most failures,
 *     {@code anthropic/claude-opus-4-6}); empty when unknown
 * @param freshFailures whether one of the calls behind the shares failed (5xx or 429) within the
 *     short window (the newest 1/12 of the SLI window, at least two evaluations): the signal rules
 *     step down on the shares only then, so failures that are over — a window that still remembers
 *     an outage after its upstream healed — hold a tier at most, never take it lower
 * @param freshClientFailures whether one of the clients' requests failed within the same short
 *     window: the burn steps down or holds only then (fresh evidence), so an outage's burn that the
 *     5 min window still remembers never holds a scope whose clients are all answered now
 * @param stepUpHeld why a step up must wait though the reading is healthy (a target of the tier
 *     above has an open circuit whose trial has not tested it yet, e.g. {@code "ea/claude-opus-4-6:
 *     circuit open, trial in 12 s"}); empty when nothing holds it
 * @param freshP99Millis the p99 of the same latency samples within the short window only (the
 *     newest 1/12 of the SLI window, at least two evaluations), ms; 0 when there were none. Latency
 *     is judged on both windows (SRE workbook ch. 5, multiwindow): {@code p99Millis} steps down only
 *     while this one is also at the step-down bound, and holds a tier only while this one is also
 *     at the healthy bound, so a window that still remembers slow calls after latency recovered is
 *     history (fresh evidence). The shorter constructors set it to {@code p99Millis}.
 * @param aboveHealthy whether a target of the tier above answered a call within the short window
 *     and none of them failed there (a trial probe that passed; at T2, a cache miss the reduced
 *     target answered): evidence that the tier above is healthy again, so a step up after flaps
 *     waits {@code healthyFor} only, not the hold-down the flaps grew ({@link TierController});
 *     false when unknown, and in the shorter constructors
 */
public record SliReading(
    double p99Millis,
    double serverErrorShare,
    double rateLimitedShare,
    long requests,
    double burn1h,
    double burn5m,
    long burnRequests,
    double clientFailureShare,
    String source,
    boolean freshFailures,
    boolean freshClientFailures,
    String stepUpHeld,
    double freshP99Millis,
    boolean aboveHealthy) {

  public SliReading {
    check("clientFailureShare", clientFailureShare, 1);
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(stepUpHeld, "stepUpHeld");
    check("p99Millis", p99Millis, Double.MAX_VALUE);
    check("freshP99Millis", freshP99Millis, Double.MAX_VALUE);
    check("serverErrorShare", serverErrorShare, 1);
    check("rateLimitedShare", rateLimitedShare, 1);
    check("burn1h", burn1h, Double.MAX_VALUE);
    check("burn5m", burn5m, Double.MAX_VALUE);
    if (requests < 0) throw new IllegalArgumentException("requests must be non-negative: " + requests);
    if (burnRequests < 0) throw new IllegalArgumentException("burnRequests must be non-negative: " + burnRequests);
  }

  /** A reading whose short window's p99 is its SLI window's (latency counts as fresh). */
  public SliReading(double p99Millis, double serverErrorShare, double rateLimitedShare, long requests,
      double burn1h, double burn5m, long burnRequests, double clientFailureShare, String source,
      boolean freshFailures, boolean freshClientFailures, String stepUpHeld) {
    this(p99Millis, serverErrorShare, rateLimitedShare, requests, burn1h, burn5m, burnRequests, clientFailureShare,
        source, freshFailures, freshClientFailures, stepUpHeld, p99Millis, false);
  }

  /**
   * A scoped reading whose clients' failures count as fresh and whose step up nothing holds.
   */
  public SliReading(double p99Millis, double serverErrorShare, double rateLimitedShare, long requests,
      double burn1h, double burn5m, long burnRequests, double clientFailureShare, String source,
      boolean freshFailures) {
    this(p99Millis, serverErrorShare, rateLimitedShare, requests, burn1h, burn5m, burnRequests, clientFailureShare,
        source, freshFailures, true, "", p99Millis, false);
  }

  /** A scoped reading whose failures count as fresh. */
  public SliReading(double p99Millis, double serverErrorShare, double rateLimitedShare, long requests,
      double burn1h, double burn5m, long burnRequests, double clientFailureShare, String source) {
    this(p99Millis, serverErrorShare, rateLimitedShare, requests, burn1h, burn5m, burnRequests, clientFailureShare,
        source, true, true, "", p99Millis, false);
  }

  /**
   * A reading whose calls are what the clients saw (one window for both, as before issue 10): the
   * clients' failure share is the calls' 5xx and 429 shares together, and the failures count as
   * fresh.
   */
  public SliReading(double p99Millis, double serverErrorShare, double rateLimitedShare, long requests,
      double burn1h, double burn5m, long burnRequests) {
    this(p99Millis, serverErrorShare, rateLimitedShare, requests, burn1h, burn5m, burnRequests,
        Math.min(1, serverErrorShare + rateLimitedShare), "", true, true, "", p99Millis, false);
  }

  /** A reading with no traffic at all. */
  public static final SliReading QUIET = new SliReading(0, 0, 0, 0, 0, 0, 0);

  /**
   * A scoped reading: the signals of the targets' API calls, the burn and failure share of the
   * clients.
   *
   * @param calls the merged SLI window of the targets' calls
   * @param source the target the signals point at, for explanations
   * @param clients what the clients saw over the SLI window (only its failure share is read)
   * @param burn the clients' error-budget burn
   */
  public static SliReading scoped(SliSnapshot calls, String source, SliSnapshot clients, BurnRates burn) {
    return scoped(calls, source, clients, burn, true);
  }

  /**
   * A scoped reading, saying whether its calls' failures are fresh.
   *
   * @param freshFailures whether one of the calls behind the shares failed within the short window
   *     (see {@link #freshFailures()})
   */
  public static SliReading scoped(SliSnapshot calls, String source, SliSnapshot clients, BurnRates burn,
      boolean freshFailures) {
    Objects.requireNonNull(calls, "calls");
    Objects.requireNonNull(clients, "clients");
    double p99 = Math.max(calls.p99Millis(), clients.p99Millis());
    return scoped(calls, source, clients, burn, freshFailures, true, "", p99);
  }

  /**
   * A scoped reading with every fresh-evidence input: see {@link #freshFailures()}, {@link
   * #freshClientFailures()}, {@link #stepUpHeld()} and {@link #freshP99Millis()}.
   *
   * @param freshP99Millis the higher of the calls' and the clients' p99 within the short window, ms
   */
  public static SliReading scoped(SliSnapshot calls, String source, SliSnapshot clients, BurnRates burn,
      boolean freshFailures, boolean freshClientFailures, String stepUpHeld, double freshP99Millis) {
    Objects.requireNonNull(calls, "calls");
    Objects.requireNonNull(clients, "clients");
    Objects.requireNonNull(burn, "burn");
    return new SliReading(Math.max(calls.p99Millis(), clients.p99Millis()), calls.serverErrorRate(),
        calls.rateLimitedRate(), calls.total(), burn.burn1h(), burn.burn5m(), burn.requests5m(),
        1 - clients.successRate(), source, freshFailures, freshClientFailures, stepUpHeld, freshP99Millis, false);
  }

  /** This reading with {@code why} holding its step up (empty: nothing holds it). */
  public SliReading withStepUpHeld(String why) {
    return new SliReading(p99Millis, serverErrorShare, rateLimitedShare, requests, burn1h, burn5m, burnRequests,
        clientFailureShare, source, freshFailures, freshClientFailures, why, freshP99Millis, aboveHealthy);
  }

  /** This reading with the short window's p99 (see {@link #freshP99Millis()}). */
  public SliReading withFreshP99(double millis) {
    return new SliReading(p99Millis, serverErrorShare, rateLimitedShare, requests, burn1h, burn5m, burnRequests,
        clientFailureShare, source, freshFailures, freshClientFailures, stepUpHeld, millis, aboveHealthy);
  }

  /** This reading saying whether the tier above is known healthy now (see {@link #aboveHealthy()}). */
  public SliReading withAboveHealthy(boolean value) {
    return new SliReading(p99Millis, serverErrorShare, rateLimitedShare, requests, burn1h, burn5m, burnRequests,
        clientFailureShare, source, freshFailures, freshClientFailures, stepUpHeld, freshP99Millis, value);
  }

  /** Reads a sliding-window snapshot and the tracker's burn rates. */
  public static SliReading of(SliSnapshot snapshot, SloTracker slo) {
    return of(snapshot, slo.burnRates());
  }

  /** Combines a sliding-window snapshot with burn rates read earlier. */
  public static SliReading of(SliSnapshot snapshot, BurnRates burn) {
    Objects.requireNonNull(snapshot, "snapshot");
    Objects.requireNonNull(burn, "burn");
    return new SliReading(snapshot.p99Millis(), snapshot.serverErrorRate(), snapshot.rateLimitedRate(),
        snapshot.total(), burn.burn1h(), burn.burn5m(), burn.requests5m());
  }

  /** The burn part of this reading. */
  public BurnRates burnRates() {
    return new BurnRates(burn1h, burn5m, burnRequests);
  }

  private static void check(String name, double value, double max) {
    if (!(value >= 0 && value <= max)) {
      throw new IllegalArgumentException(name + " must be in [0, " + max + "], was " + value);
    }
  }
}
