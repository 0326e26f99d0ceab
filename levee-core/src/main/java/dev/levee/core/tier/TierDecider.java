package dev.levee.core.tier;

import dev.levee.core.slo.BurnRates;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Decides a feature's next tier from its current tier, one {@link SliReading} and its {@link
 * Priority}: a pure function of its inputs and {@link TierThresholds} (issue 4). The {@link
 * TierController} adds time (step up only after {@code healthy-for}).
 *
 * <p>The rules, in order:
 *
 * <ol>
 *   <li><b>Burn</b> (SRE workbook ch. 5, multiwindow burn rate): when the error budget burns at
 *       {@code burnThreshold} (14.4) or faster over <em>both</em> 1 h and 5 min, and the 5 min
 *       window holds at least {@code minRequests} calls, and a client failed within the short
 *       window ({@link SliReading#freshClientFailures()}), the target is {@code burnTier} (T2);
 *       for an {@link Priority#OPTIONAL} feature {@code optionalBurnTier} (T3).
 *   <li><b>Signals</b>: each of 5xx share at or above {@code serverErrorDown} (2%), 429 share at
 *       or above {@code rateLimitedDown} (5%), p99 at or above {@code p99DownMillis} (800 ms) is
 *       one step down <em>from the current tier</em>; so 5xx and 429 both elevated are two
 *       steps. The shares read the API calls of the targets the feature's alias uses; the burn
 *       reads what the clients saw (issue 10). While the clients are answered (their failure
 *       share over the SLI window below {@code serverErrorDown}) signal steps never go below
 *       {@code answeredSignalFloor} (T1): an outage that retries and fallbacks absorb moves the
 *       feature to its reduced target, never to cached or static answers. When the clients see
 *       failures, signal steps reach {@code signalFloor} (T2): only a burning error budget takes
 *       an optional feature to a static answer, and nothing automatic takes a critical or
 *       standard feature there (a person can, with {@link TierController#force}). A window
 *       with fewer than {@code minRequests} calls (the minimum volume, default 20) does not step
 *       down on signals: its shares are noise. The 5xx and 429 shares step down only while the
 *       failures behind them are {@linkplain SliReading#freshFailures() fresh} (a call failed
 *       within the short window, 10 s by default): a window that still remembers an outage whose
 *       upstream has healed holds the tier (it is not healthy), never takes it lower.
 *   <li><b>Latency on both windows</b> (SRE workbook ch. 5, multiwindow): p99 steps down only while
 *       the p99 within the short window ({@link SliReading#freshP99Millis()}) is also at or above
 *       {@code p99DownMillis}, and holds a tier from stepping up only while that one is also at or
 *       above {@code healthyP99Millis}: a window that still remembers slow calls after latency
 *       recovered (no call within the short window, or only fast ones) neither steps down nor holds.
 *   <li><b>Combining</b>: the lower (more degraded) of the burn target and the signal target
 *       wins. A target that is not below the current tier is a hold: the decider never steps
 *       up while anything is elevated.
 *   <li><b>Healthy</b>: p99 below {@code healthyP99Millis} (500 ms) in the SLI window or in the
 *       short window, 5xx below 0.5%, 429 below
 *       1%, and the <em>short</em> (5 min) burn window below {@code healthyBurn} (default 14.4,
 *       the alert threshold). This is how a multiwindow alert resets (SRE workbook ch. 5): the
 *       1 h window says an incident was big, only the short one says whether it is still going
 *       on, so the hour's memory of a storm never holds a feature down once the storm is over.
 *       One step up.
 *   <li><b>Quiet</b>: with fewer than {@code minRequests} calls in the SLI window (no traffic,
 *       or a feature at T2 whose cache answers everything), the window counts as healthy when
 *       none of its calls failed and burn is not elevated; so a feature that stopped calling
 *       upstream still probes its way back up, and the first bad window steps it down again. (The
 *       burn is the caller's to read: the gateway starts a scope's burn afresh after a whole SLI
 *       window with no call and no client request, so an idle scope is not held by history.)
 *   <li><b>Fresh evidence for the burn</b>: the burn steps down, and holds a tier from stepping
 *       up, only while a client failed within the short window ({@link
 *       SliReading#freshClientFailures()}); a 5 min window that remembers an outage whose clients
 *       are all answered now (from the cache at T2, say) is history, not a reason to stay down.
 *   <li><b>Step up held</b>: a healthy reading whose {@link SliReading#stepUpHeld()} says why (an
 *       open circuit of a target the tier above calls, not yet tested by a trial) stays at its
 *       tier, as HEALTHY: the controller's healthy run goes on, and the step comes at the first
 *       evaluation after the hold lifts.
 *   <li>Otherwise <b>hold</b>.
 * </ol>
 *
 * <p>Recovery time: after a storm the SLI window (60 s) must be clean and the 5 min burn below
 * {@code healthyBurn}; then one tier per {@code healthy-for} (30 s). After a 3-minute storm of
 * 100% 429s a feature is back at T0 well within 5 min of its end ({@code StormDrillTest}).
 * Setting {@code healthyBurn} to 2 waits until the storm has left the 5 min window entirely.
 *
 * <p>Immutable and thread-safe.
 */
public final class TierDecider {

  private final TierThresholds thresholds;

  /** A decider with {@link TierThresholds#DEFAULT}. */
  public TierDecider() {
    this(TierThresholds.DEFAULT);
  }

  public TierDecider(TierThresholds thresholds) {
    this.thresholds = Objects.requireNonNull(thresholds, "thresholds");
  }

  public TierThresholds thresholds() {
    return thresholds;
  }

  /**
   * The next tier for a feature now at {@code current}.
   *
   * @return the proposed tier, the rule that decided, and a reason with the deciding numbers
   */
  public TierDecision decide(Tier current, SliReading reading, Priority priority) {
    Objects.requireNonNull(current, "current");
    Objects.requireNonNull(reading, "reading");
    Objects.requireNonNull(priority, "priority");
    TierThresholds t = thresholds;

    BurnRates burn = reading.burnRates();
    Tier burnTarget = null;
    String burnWhy = null;
    if (burn.requests5m() >= t.minRequests() && burn.bothAtLeast(t.burnThreshold())
        && reading.freshClientFailures()) {
      burnTarget = t.burnTier(priority);
      burnWhy = "error-budget burn " + times(reading.burn1h()) + " over 1 h and " + times(reading.burn5m())
          + " over 5 min, at or above " + times(t.burnThreshold()) + ": " + priority.name().toLowerCase(Locale.ROOT)
          + " feature to " + burnTarget;
    }

    boolean enough = reading.requests() >= t.minRequests();
    List<String> elevated = new ArrayList<>(3);
    String stale = null; // elevated shares whose failures are over: they hold, never step down
    if (enough) {
      List<String> shares = new ArrayList<>(2);
      if (reading.serverErrorShare() >= t.serverErrorDown()) {
        shares.add("5xx " + pct(reading.serverErrorShare()) + " >= " + pct(t.serverErrorDown()));
      }
      if (reading.rateLimitedShare() >= t.rateLimitedDown()) {
        shares.add("429 " + pct(reading.rateLimitedShare()) + " >= " + pct(t.rateLimitedDown()));
      }
      if (reading.freshFailures()) {
        elevated.addAll(shares);
      } else if (!shares.isEmpty()) {
        stale = String.join(", ", shares) + ", but no call failed within the short window (none made, or all answered):"
            + " no step down on older failures alone";
      }
      // p99 on both windows (multiwindow): the SLI window's steps down only while the short one's is as high
      if (reading.p99Millis() >= t.p99DownMillis() && reading.freshP99Millis() >= t.p99DownMillis()) {
        elevated.add("p99 " + ms(reading.p99Millis()) + " >= " + ms(t.p99DownMillis()));
      }
    }
    boolean answered = reading.clientFailureShare() < t.serverErrorDown();
    Tier floor = answered ? t.answeredSignalFloor() : t.signalFloor();
    Tier signalTarget = elevated.isEmpty() ? null : signalStep(current, elevated.size(), floor);
    String signalWhy = elevated.isEmpty() ? null
        : (reading.source().isEmpty() ? "" : reading.source() + ": ") + String.join(", ", elevated) + ": "
            + steps(elevated.size()) + " down" + (answered && floor != t.signalFloor() ? " (clients answered: floor " + floor + ")" : "");

    if (burnTarget != null || signalTarget != null) {
      boolean burnWins = signalTarget == null || (burnTarget != null && !signalTarget.isBelow(burnTarget));
      Tier target = burnWins ? burnTarget : signalTarget;
      String why = burnWins ? burnWhy : signalWhy;
      if (target.isBelow(current)) {
        return new TierDecision(target, burnWins ? TierDecision.Cause.BURN : TierDecision.Cause.SIGNALS,
            why + ", " + current + " -> " + target);
      }
      String all = burnWhy != null && signalWhy != null ? burnWhy + "; " + signalWhy : why;
      return new TierDecision(current, TierDecision.Cause.HOLD, all + ", already at " + current);
    }

    // the short window decides (multiwindow reset); a burn no client added to lately is history (fresh evidence)
    boolean burnHealthy = burn.burn5m() < t.healthyBurn() || !reading.freshClientFailures();
    // a burn is named only when it says something: above zero, and "over" when no client failed lately
    String burnOver = burn.burn5m() >= t.healthyBurn() && !reading.freshClientFailures()
        ? ", " + burnText(burn.burn5m()) + ", but no client failed within the short window: that outage is over" : "";
    if (!enough) {
      boolean clean = reading.serverErrorShare() == 0 && reading.rateLimitedShare() == 0;
      String quiet = "quiet: " + calls(reading.requests()) + ", fewer than the " + t.minRequests() + " needed to judge";
      if (clean && burnHealthy) {
        return healthy(current, quiet + ", none failed" + burnOver, reading);
      }
      return new TierDecision(current, TierDecision.Cause.HOLD,
          quiet + (clean ? "" : ", some failed") + (burnHealthy ? "" : ", " + burnText(reading, t)) + ": hold");
    }
    List<String> notHealthy = new ArrayList<>(4);
    // latency on both windows: the short one says whether the slowness is still going on
    boolean slowWindow = !(reading.p99Millis() < t.healthyP99Millis());
    boolean slowNow = !(reading.freshP99Millis() < t.healthyP99Millis());
    if (slowWindow && slowNow) {
      notHealthy.add("p99 " + ms(reading.p99Millis()) + (reading.freshP99Millis() == reading.p99Millis() ? ""
          : " (" + ms(reading.freshP99Millis()) + " within the short window)") + " >= " + ms(t.healthyP99Millis()));
    }
    String latencyOver = slowWindow && !slowNow ? " but " + ms(reading.freshP99Millis()) + " within the short window: over"
        : "";
    if (!(reading.serverErrorShare() < t.healthyServerErrorShare())) {
      notHealthy.add("5xx " + pct(reading.serverErrorShare()) + " >= " + pct(t.healthyServerErrorShare()));
    }
    if (!(reading.rateLimitedShare() < t.healthyRateLimitedShare())) {
      notHealthy.add("429 " + pct(reading.rateLimitedShare()) + " >= " + pct(t.healthyRateLimitedShare()));
    }
    if (!burnHealthy) {
      notHealthy.add(burnText(reading, t));
    }
    if (stale != null) {
      notHealthy.add(stale);
    }
    if (notHealthy.isEmpty()) {
      String burnNow = !burnOver.isEmpty() ? burnOver : burn.burn5m() > 0 ? ", " + burnText(burn.burn5m()) : "";
      // p99 0: no latency sample in the window (JSON answers are none), not a 0 ms one
      String latency = reading.p99Millis() > 0 ? "p99 " + ms(reading.p99Millis()) + latencyOver : "no latency samples";
      return healthy(current, "healthy: " + latency + ", 5xx "
          + pct(reading.serverErrorShare()) + ", 429 " + pct(reading.rateLimitedShare()) + burnNow, reading);
    }
    return new TierDecision(current, TierDecision.Cause.HOLD,
        "not healthy, not degraded: " + String.join(", ", notHealthy) + ": hold");
  }

  private static Tier signalStep(Tier current, int steps, Tier floor) {
    if (!floor.isBelow(current)) {
      return current; // at or below the floor already: signals alone take it no lower
    }
    Tier stepped = current.down(steps);
    return stepped.isBelow(floor) ? floor : stepped;
  }

  /**
   * A healthy reading: one step up, unless the reading says what holds it ({@link
   * SliReading#stepUpHeld()}); then the decision stays at {@code current}, still HEALTHY, so the
   * controller keeps the healthy run and steps up at the first evaluation after the hold lifts.
   */
  private static TierDecision healthy(Tier current, String why, SliReading reading) {
    Tier next = current.up();
    if (next == current) {
      return new TierDecision(next, TierDecision.Cause.HEALTHY, why + ", already at " + current);
    }
    if (!reading.stepUpHeld().isEmpty()) {
      return new TierDecision(current, TierDecision.Cause.HEALTHY,
          why + "; step up to " + next + " held: " + reading.stepUpHeld());
    }
    return new TierDecision(next, TierDecision.Cause.HEALTHY, why + ": one step up, " + current + " -> " + next);
  }

  private static String burnText(SliReading r, TierThresholds t) {
    return burnText(r.burn5m()) + ", at or above " + times(t.healthyBurn());
  }

  /** The short burn window in words: {@code "error-budget burn 30.2x over 5 min"}. */
  private static String burnText(double burn5m) {
    return "error-budget burn " + times(burn5m) + " over 5 min";
  }

  private static String calls(long n) {
    return n + (n == 1 ? " call" : " calls");
  }

  private static String steps(int n) {
    return n == 1 ? "one step" : n == 2 ? "two steps" : n + " steps";
  }

  private static String pct(double share) {
    return String.format(Locale.ROOT, "%.1f%%", share * 100);
  }

  private static String ms(double millis) {
    return String.format(Locale.ROOT, "%.0f ms", millis);
  }

  /** A burn rate: how many times faster than the SLO allows the error budget is spent ({@code 30.2x}). */
  private static String times(double value) {
    return String.format(Locale.ROOT, "%.1fx", value);
  }
}
