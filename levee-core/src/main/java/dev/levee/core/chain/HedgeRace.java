package dev.levee.core.chain;

import dev.levee.core.breaker.Permit;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.Scheduler;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * The race of one request's first call (the primary, run on the request's thread) and its hedge
 * (run on the injected executor): at most one hedge, started by a timer unless the primary has
 * begun to answer; exactly one winner, decided under this object's lock.
 *
 * <p>Who settles what: the winner's breaker permit goes into the request's {@link Completion}. A
 * loser is aborted at once (its connection closed) and its permit settled {@linkplain
 * Permit#cancelled() cancelled}: losing a race says nothing about a target. The hedge thread
 * settles its own permit when it ends after the race was decided against it; a hedge that failed
 * before the race was decided is left to the request thread, which settles it like any failed
 * call. The steps are recorded by the request thread only ({@link FallbackChain}).
 */
final class HedgeRace<T> {

  /** What the launcher says when the delay has passed: start the hedge, or not. */
  sealed interface Start permits Launch, Refused {}

  /** A hedge cleared to start (breaker admitted, budget token spent, deadline holds). */
  record Launch(AttemptContext context, Permit permit) implements Start {}

  /**
   * A hedge that may not start, and why ({@link AttemptRecord.Step#BUDGET_DENIED}, {@link
   * AttemptRecord.Step#SKIPPED_OPEN} or {@link AttemptRecord.Step#DEADLINE}).
   */
  record Refused(Target target, AttemptRecord.Step why) implements Start {}

  /** What the hedge did, as the request thread reads it once the race is decided. */
  record Hedge<T>(Target target, Permit permit, AttemptResult<T> result, Duration took, boolean abandoned) {}

  private enum Winner { NONE, PRIMARY, HEDGE, NOBODY }

  private final Attempt<T> attempt;
  private final Ticker ticker;
  private final Executor executor;
  private final Function<AttemptControl, Start> launcher;
  private final AttemptControl primary = new AttemptControl(this::primaryBegan);
  private Scheduler.Scheduled timer;

  // guarded by this
  private Winner winner = Winner.NONE;
  private boolean primaryBegan;
  private boolean primaryDone;
  private Launch hedge;
  private Refused refused;
  private AttemptControl hedgeControl;
  private long hedgeStart;
  private AttemptResult<T> hedgeResult;
  private long hedgeEnd;
  private boolean hedgeLost; // it ended after the race was decided against it, and settled itself

  /**
   * @param launcher asked when the delay has passed: a launch for the hedge with the given
   *     control, or why it may not start (breaker, budget, deadline)
   */
  HedgeRace(Attempt<T> attempt, Ticker ticker, Executor executor, Function<AttemptControl, Start> launcher) {
    this.attempt = attempt;
    this.ticker = ticker;
    this.executor = executor;
    this.launcher = launcher;
  }

  /** The control the primary's context must carry. */
  AttemptControl primaryControl() {
    return primary;
  }

  /** Arms the hedge timer; call once, before {@link #runPrimary}. */
  void arm(Scheduler scheduler, Duration after) {
    Scheduler.Scheduled scheduled = scheduler.schedule(after, this::fire);
    synchronized (this) {
      timer = scheduled;
    }
  }

  /**
   * Runs the primary on the calling thread. When it answers first it wins, and a running hedge is
   * aborted; when the hedge won meanwhile, the primary was aborted and {@link #hedgeWon()} says so.
   */
  AttemptResult<T> runPrimary(AttemptContext context) throws InterruptedException {
    AttemptResult<T> result = attempt.call(context);
    AttemptControl abort = null;
    synchronized (this) {
      primaryDone = true;
      if (result instanceof AttemptResult.Success<T> && winner == Winner.NONE) {
        winner = Winner.PRIMARY;
        abort = hedgeControl;
      }
    }
    stopTimer();
    if (abort != null) {
      abort.abort();
    }
    return result;
  }

  /** Whether the hedge answered first (the primary was then aborted, or had failed). */
  synchronized boolean hedgeWon() {
    return winner == Winner.HEDGE;
  }

  /** Why the hedge was not started when its delay had passed, or null (it started, or its time never came). */
  synchronized Refused refused() {
    return refused;
  }

  /** Whether a hedge was started. */
  synchronized boolean launched() {
    return hedge != null;
  }

  /**
   * After the primary failed: waits for a running hedge to end (it may have won; see {@link
   * #hedgeWon()}).
   *
   * @throws InterruptedException when the client went away meanwhile (the hedge is abandoned)
   */
  void awaitHedge() throws InterruptedException {
    try {
      synchronized (this) {
        while (hedge != null && hedgeResult == null && winner == Winner.NONE) {
          wait();
        }
      }
    } catch (InterruptedException e) {
      abandon();
      throw e;
    }
  }

  /**
   * Ends the race without a winner (the primary failed for good, or the client left): a running
   * hedge is aborted and will settle its own permit. Idempotent; no effect once a winner is known.
   */
  void abandon() {
    AttemptControl abort;
    synchronized (this) {
      abort = abandonLocked();
    }
    stopTimer();
    if (abort != null) {
      abort.abort();
    }
  }

  private AttemptControl abandonLocked() {
    primaryDone = true;
    if (winner == Winner.NONE) {
      winner = Winner.NOBODY;
      return hedgeResult == null ? hedgeControl : null;
    }
    return null;
  }

  /**
   * The hedge as the race left it, or null when none started. {@code abandoned}: it was still
   * running when the race was decided against it (it settles its own permit); otherwise its
   * result is here and the caller settles it.
   */
  synchronized Hedge<T> hedge() {
    if (hedge == null) {
      return null;
    }
    boolean abandoned = hedgeResult == null || (winner != Winner.HEDGE && hedgeLost);
    long end = hedgeResult == null ? ticker.nanos() : hedgeEnd;
    return new Hedge<>(hedge.context().target(), hedge.permit(), abandoned ? null : hedgeResult,
        Duration.ofNanos(end - hedgeStart), abandoned);
  }

  private void primaryBegan() {
    synchronized (this) {
      primaryBegan = true;
    }
    stopTimer();
  }

  private void stopTimer() {
    Scheduler.Scheduled t;
    synchronized (this) {
      t = timer;
    }
    if (t != null) {
      t.cancel();
    }
  }

  /** The timer: starts the hedge unless the primary has begun or ended, or the launcher says no. */
  private void fire() {
    Launch launch;
    synchronized (this) {
      if (primaryDone || primaryBegan || winner != Winner.NONE || hedge != null) {
        return;
      }
      AttemptControl control = new AttemptControl(() -> { }); // the hedge's first byte changes nothing
      switch (launcher.apply(control)) {
        case Refused no -> {
          refused = no;
          return;
        }
        case Launch yes -> launch = yes;
      }
      hedge = launch;
      hedgeControl = control;
      hedgeStart = ticker.nanos();
    }
    try {
      executor.execute(this::runHedge);
    } catch (RejectedExecutionException e) {
      finishHedge(AttemptResult.failed(
          Failure.of(FailureKind.CANCELLED, 0, "cancelled", "the hedge could not start: " + e.getMessage()), null));
    }
  }

  private void runHedge() {
    AttemptResult<T> result;
    try {
      result = attempt.call(launch().context());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      result = AttemptResult.failed(Failure.of(FailureKind.CANCELLED, 0, "cancelled", "the hedge was interrupted"), null);
    } catch (RuntimeException e) {
      result = AttemptResult.failed(Failure.of(FailureKind.CANCELLED, 0, "cancelled", "the hedge failed: " + e), null);
    }
    finishHedge(result);
  }

  private synchronized Launch launch() {
    return hedge;
  }

  private void finishHedge(AttemptResult<T> result) {
    AttemptControl abortPrimary = null;
    boolean lost;
    Permit permit;
    synchronized (this) {
      permit = hedge.permit();
      hedgeResult = result;
      hedgeEnd = ticker.nanos();
      lost = winner == Winner.PRIMARY || winner == Winner.NOBODY;
      if (!lost && result instanceof AttemptResult.Success<T>) {
        winner = Winner.HEDGE;
        if (!primaryDone) {
          abortPrimary = primary;
        }
      }
      hedgeLost = lost;
      notifyAll();
    }
    if (abortPrimary != null) {
      abortPrimary.abort();
    }
    if (lost) { // decided against it while it ran: no verdict on its target, nothing of it is used
      permit.cancelled();
      if (result instanceof AttemptResult.Success<T> success) {
        attempt.discard(success.response());
      }
    }
  }
}
