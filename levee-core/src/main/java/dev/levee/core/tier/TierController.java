package dev.levee.core.tier;

import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The tier of one feature over time: applies a {@link TierDecider} to fresh readings with
 * hysteresis, and lets an operator force a tier for a drill.
 *
 * <p><b>Evaluation.</b> The caller's scheduler calls {@link #evaluate()} every {@link
 * TierControllerConfig#evaluateEvery()} (default 5 s); the controller owns no thread. Each call
 * takes one {@link SliReading} and asks the decider:
 *
 * <ul>
 *   <li><b>Down at once</b>: a burn or signal decision below the current tier is applied on the
 *       spot, however many tiers it spans. A second step down <em>on signals</em> within {@code
 *       settleAfterDown} (default 30 s) of the previous step is held, so the new tier gets to
 *       show in the window first; burn decisions are never held.
 *   <li><b>Up slowly</b>: one tier at a time, and only once every reading for {@code healthyFor}
 *       (default 30 s, measured from the first healthy reading of an unbroken run) was healthy.
 *       Any reading that is not healthy restarts the run; after a step up a fresh run is
 *       needed for the next. A storm that flickers healthy for 10 s never steps up. A healthy
 *       reading whose step up is held ({@link SliReading#stepUpHeld()}: a circuit of the tier
 *       above is open and untested) keeps the run going; the step comes at the first evaluation
 *       after the hold lifts, if the run is long enough by then.
 *   <li><b>Flaps lengthen the wait</b>: a step down that leaves a tier within {@code flapWindow}
 *       (default 2 min) of the step up into it is a flap of that tier — it was not healthy after
 *       all (a failing primary with no circuit breaker to say so: the reduced target reads healthy,
 *       the scope steps up to T0, fails, steps down). Each flap of a tier adds one {@code
 *       healthyFor} to the run the next step up into it needs, up to {@code maxHealthyFor}
 *       (default 5 min): 30 s, 60 s, 90 s ... 300 s; unless the reading brings evidence that the
 *       tier above is healthy again ({@link SliReading#aboveHealthy()}: one of its targets answered
 *       within the short window and none failed), which needs no more than {@code healthyFor}. A
 *       step up into a tier that holds for {@code flapWindow} forgets its flaps, so a later,
 *       unrelated recovery waits {@code healthyFor} again. The rule is Envoy outlier detection's
 *       ejection time ({@code base_ejection_time} times the number of ejections, capped by {@code
 *       max_ejection_time}).
 * </ul>
 *
 * <p><b>Forcing.</b> {@link #force(Tier, Duration)} pins the effective tier for a while (drills,
 * incidents); evaluation goes on underneath, and when the force expires — noticed by the next
 * {@link #current()} or {@link #evaluate()} — the feature returns to the tier evaluation
 * reached meanwhile.
 *
 * <p><b>Transitions.</b> Every change of the effective tier (evaluation, force, expiry) is sent
 * to the listeners as a {@link TierTransition}, after the lock is released, on the calling
 * thread.
 *
 * <p>Thread-safe. {@link #current()} is lock-free unless a force has just expired; the rest
 * holds this controller's own lock briefly (never a global one).
 */
public final class TierController {

  /**
   * A point-in-time view for {@code GET /admin/tiers} and /health.
   *
   * @param feature the feature
   * @param priority its priority
   * @param current the effective tier (the forced one while a force lasts)
   * @param automatic the tier evaluation has reached
   * @param forcedRemaining time left on a force; zero when none
   * @param healthyRun how long readings have been healthy without a break; zero when the last was not
   * @param lastDecision the decider's last answer, or null before the first evaluation
   * @param flaps flaps of the tier the next step up goes to (step downs out of it within {@code
   *     flapWindow} of the step up into it, since a step up into it last held; see the class comment)
   * @param holdDown how long a healthy run must last for the next step up without evidence that the
   *     tier above is healthy: {@code healthyFor} lengthened by those flaps
   */
  public record Status(
      String feature, Priority priority, Tier current, Tier automatic, Duration forcedRemaining,
      Duration healthyRun, TierDecision lastDecision, int flaps, Duration holdDown) {}

  private final String feature;
  private final Priority priority;
  private final TierDecider decider;
  private final Supplier<SliReading> readings;
  private final Ticker ticker;
  private final TierControllerConfig config;
  private final List<Consumer<TierTransition>> listeners = new CopyOnWriteArrayList<>();

  private final Object lock = new Object();
  private volatile Tier automatic = Tier.T0;
  private volatile Tier forced; // null when not forced
  private volatile long forcedUntil;
  private boolean healthyRun;
  private long healthySince;
  private boolean steppedDown;
  private long lastDownAt;
  private final int[] flaps = new int[Tier.values().length]; // per tier: premature step ups into it
  private final long[] upAt = new long[Tier.values().length]; // per tier: ticker nanos of the step up into it
  private final boolean[] upHeld = new boolean[Tier.values().length]; // per tier: at or above it since upAt
  private TierDecision lastDecision;

  /**
   * A controller starting at {@link Tier#T0}.
   *
   * @param feature the feature's name, for transitions
   * @param readings where {@link #evaluate()} takes its readings (typically {@code () ->
   *     SliReading.of(window.snapshot(), slo)})
   */
  public TierController(String feature, Priority priority, TierDecider decider, Supplier<SliReading> readings,
      TierControllerConfig config, Ticker ticker) {
    this.feature = Objects.requireNonNull(feature, "feature");
    this.priority = Objects.requireNonNull(priority, "priority");
    this.decider = Objects.requireNonNull(decider, "decider");
    this.readings = Objects.requireNonNull(readings, "readings");
    this.config = Objects.requireNonNull(config, "config");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  public String feature() {
    return feature;
  }

  public Priority priority() {
    return priority;
  }

  /** Registers a listener for every change of the effective tier. */
  public void onTransition(Consumer<TierTransition> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** The effective tier: the forced one while a force lasts, else the evaluated one. */
  public Tier current() {
    Tier pinned = forced;
    if (pinned == null) {
      return automatic;
    }
    long now = ticker.nanos();
    if (now - forcedUntil < 0) {
      return pinned;
    }
    List<TierTransition> out = new ArrayList<>(1);
    Tier tier;
    synchronized (lock) {
      expireForce(now, out);
      tier = effective();
    }
    publish(out);
    return tier;
  }

  /** Takes a reading from the supplier and evaluates it; see {@link #evaluate(SliReading)}. */
  public TierDecision evaluate() {
    return evaluate(readings.get());
  }

  /**
   * Applies one reading.
   *
   * @return what happened to the evaluated tier: the decider's decision, or a hold explaining
   *     that a step up waits for {@code healthyFor} (lengthened by flaps) or a step down for {@code
   *     settleAfterDown}
   */
  public TierDecision evaluate(SliReading reading) {
    Objects.requireNonNull(reading, "reading");
    List<TierTransition> out = new ArrayList<>(2);
    TierDecision applied;
    synchronized (lock) {
      long now = ticker.nanos();
      expireForce(now, out);
      Tier before = effective();
      Tier from = automatic;
      forgetFlapsOnceAStepUpHeld(now);
      TierDecision decision = decider.decide(from, reading, priority);
      applied = apply(decision, from, now, reading.aboveHealthy());
      lastDecision = applied;
      Tier after = effective();
      if (after != before) {
        out.add(new TierTransition(feature, before, after, applied.reason(), now));
      }
    }
    publish(out);
    return applied;
  }

  private TierDecision apply(TierDecision decision, Tier from, long now, boolean aboveHealthy) {
    switch (decision.cause()) {
      case BURN -> {
        stepDown(decision.next(), from, now);
        return decision;
      }
      case SIGNALS -> {
        long sinceDown = now - lastDownAt;
        if (steppedDown && sinceDown < config.settleAfterDown().toNanos()) {
          healthyRun = false;
          return new TierDecision(from, TierDecision.Cause.HOLD, decision.reason() + "; held: stepped down "
              + Duration.ofNanos(sinceDown).toSeconds() + " s ago, settling for " + config.settleAfterDown().toSeconds() + " s");
        }
        stepDown(decision.next(), from, now);
        return decision;
      }
      case HEALTHY -> {
        if (!healthyRun) {
          healthyRun = true;
          healthySince = now;
        }
        if (decision.next() == from) {
          return decision; // healthy at T0, or a step up the reading holds (SliReading.stepUpHeld): the run goes on
        }
        long run = now - healthySince;
        Tier into = decision.next();
        Duration needed = aboveHealthy ? config.healthyFor() : config.holdDown(flaps[into.ordinal()]);
        if (run < needed.toNanos()) {
          return new TierDecision(from, TierDecision.Cause.HOLD, decision.reason() + "; held: healthy for "
              + Duration.ofNanos(run).toSeconds() + " s of " + needed.toSeconds() + " s" + flapText(into, aboveHealthy));
        }
        automatic = into;
        healthySince = now; // the next step needs a fresh run at the new tier
        upAt[into.ordinal()] = now;
        upHeld[into.ordinal()] = true;
        return new TierDecision(decision.next(), decision.cause(), decision.reason() + " (healthy for "
            + Duration.ofNanos(run).toSeconds() + " s)");
      }
      case HOLD -> {
        healthyRun = false;
        return decision;
      }
    }
    throw new AssertionError(decision.cause());
  }

  private void stepDown(Tier to, Tier from, long now) {
    for (Tier left = from; to.isBelow(left); left = left.down(1)) { // every tier this step leaves
      int i = left.ordinal();
      if (upHeld[i] && now - upAt[i] < config.flapWindow().toNanos()) {
        flaps[i]++; // the step up into it was premature: the next one waits longer
      }
      upHeld[i] = false;
    }
    automatic = to;
    steppedDown = true;
    lastDownAt = now;
    healthyRun = false;
  }

  /** A step up into a tier that has held for {@code flapWindow} was right: that tier's flaps are over. */
  private void forgetFlapsOnceAStepUpHeld(long now) {
    for (int i = 0; i < flaps.length; i++) {
      if (flaps[i] > 0 && upHeld[i] && now - upAt[i] >= config.flapWindow().toNanos()) {
        flaps[i] = 0;
      }
    }
  }

  private String flapText(Tier into, boolean aboveHealthy) {
    int n = flaps[into.ordinal()];
    if (n == 0) {
      return "";
    }
    return aboveHealthy ? " (" + into + " flapped, but its targets answer now)"
        : " (" + into + " flapped " + n + (n == 1 ? " time" : " times") + ": a step down within "
            + config.flapWindow().toSeconds() + " s of a step up adds " + config.healthyFor().toSeconds() + " s each)";
  }

  /**
   * Starts from {@code tier}, a tier another evaluator decided, as the evaluated tier: the caller
   * took over evaluating this feature (a replica that took the cluster's tier lease adopts the tier
   * the previous holder published; see {@code docs/production.md}). From here the usual rules
   * apply, and this replica has no reading from before:
   *
   * <ul>
   *   <li><b>healthy-for</b>: the healthy run starts afresh, at the first healthy reading after the
   *       adoption (even when {@code tier} is the one already evaluated: the readings in between
   *       were another evaluator's), so an adoption is never followed at once by a step up;
   *   <li><b>flaps</b>: an adoption above the evaluated tier counts as a step up into {@code tier}
   *       made now, so a step down out of it within {@code flapWindow} is a flap of it;
   *   <li><b>settling</b>: an adoption is not a step down, so it holds no later step down on
   *       signals: the caller served {@code tier} already (every replica serves the published
   *       tier), so its window shows that tier, which is what settling waits for.
   * </ul>
   *
   * No transition is sent: the tier the feature is served in did not change. A force is kept.
   *
   * @param reason why, kept as the last decision (a hold) for {@link #status()}
   * @return the evaluated tier before
   */
  public Tier adopt(Tier tier, String reason) {
    Objects.requireNonNull(tier, "tier");
    Objects.requireNonNull(reason, "reason");
    synchronized (lock) {
      long now = ticker.nanos();
      Tier from = automatic;
      healthyRun = false;
      if (from.isBelow(tier)) {
        upAt[tier.ordinal()] = now;
        upHeld[tier.ordinal()] = true;
      }
      for (Tier left = from; tier.isBelow(left); left = left.down(1)) {
        upHeld[left.ordinal()] = false; // left without a step down: no flap, and no step up of it holds
      }
      automatic = tier;
      lastDecision = new TierDecision(tier, TierDecision.Cause.HOLD, reason);
      return from;
    }
  }

  /**
   * Pins the effective tier to {@code tier} for {@code duration}, replacing any earlier force.
   *
   * @param duration positive; the force ends on its own afterwards
   */
  public void force(Tier tier, Duration duration) {
    Objects.requireNonNull(tier, "tier");
    if (!duration.isPositive()) throw new IllegalArgumentException("force duration must be positive, was " + duration);
    List<TierTransition> out = new ArrayList<>(1);
    synchronized (lock) {
      long now = ticker.nanos();
      Tier before = effective();
      forcedUntil = now + duration.toNanos();
      forced = tier;
      if (tier != before) {
        out.add(new TierTransition(feature, before, tier, "forced to " + tier + " for " + duration.toSeconds() + " s", now));
      }
    }
    publish(out);
  }

  /** Ends a force early; nothing happens when none is active. */
  public void clearForce() {
    List<TierTransition> out = new ArrayList<>(1);
    synchronized (lock) {
      long now = ticker.nanos();
      if (forced != null) {
        endForce(now, "force to " + forced + " cleared", out);
      }
    }
    publish(out);
  }

  /** The state now, for admin and health endpoints. */
  public Status status() {
    List<TierTransition> out = new ArrayList<>(1);
    Status status;
    synchronized (lock) {
      long now = ticker.nanos();
      expireForce(now, out);
      forgetFlapsOnceAStepUpHeld(now);
      status = new Status(feature, priority, effective(), automatic,
          forced == null ? Duration.ZERO : Duration.ofNanos(forcedUntil - now),
          healthyRun ? Duration.ofNanos(now - healthySince) : Duration.ZERO, lastDecision,
          flaps[automatic.up().ordinal()], config.holdDown(flaps[automatic.up().ordinal()]));
    }
    publish(out);
    return status;
  }

  private Tier effective() {
    Tier pinned = forced;
    return pinned != null ? pinned : automatic;
  }

  private void expireForce(long now, List<TierTransition> out) {
    if (forced != null && now - forcedUntil >= 0) {
      endForce(now, "force to " + forced + " expired", out);
    }
  }

  private void endForce(long now, String reason, List<TierTransition> out) {
    Tier was = forced;
    forced = null;
    if (automatic != was) {
      out.add(new TierTransition(feature, was, automatic, reason + ", back to evaluated " + automatic, now));
    }
  }

  private void publish(List<TierTransition> transitions) {
    for (TierTransition transition : transitions) {
      for (Consumer<TierTransition> listener : listeners) {
        listener.accept(transition);
      }
    }
  }
}
