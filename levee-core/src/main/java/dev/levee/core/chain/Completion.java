package dev.levee.core.chain;

import dev.levee.core.breaker.Permit;
import dev.levee.core.budget.Budget;
import dev.levee.core.retry.Failure;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The open end of the call that answered: the caller reports, exactly once, how it finally
 * went. A JSON answer completes at once; a stream completes at {@code message_stop}, or fails
 * if it is cut, stalls or errors after its commit point.
 *
 * <p>Completing settles the target's breaker permit, credits the retry budget on success and
 * tells the {@link CallObserver}. Thread-safe; a second completion is ignored, so an exit path
 * may complete defensively.
 */
public final class Completion {

  private final Target target;
  private final Permit permit;
  private final Budget budget;
  private final CallObserver observer;
  private final Duration latency;
  private final boolean firstToken;
  private final AtomicBoolean done = new AtomicBoolean();

  Completion(Target target, Permit permit, Budget budget, CallObserver observer, Duration latency,
      boolean firstToken) {
    this.target = target;
    this.permit = permit;
    this.budget = budget;
    this.observer = observer;
    this.latency = latency;
    this.firstToken = firstToken;
  }

  /** The call ended well. */
  public void success() {
    if (done.compareAndSet(false, true)) {
      permit.success();
      budget.onSuccess();
      observer.onSuccess(target, latency, firstToken);
    }
  }

  /** The call failed after it had answered (a stream cut, stalled or errored). */
  public void failure(Failure failure) {
    if (done.compareAndSet(false, true)) {
      settle(permit, failure);
      observer.onFailure(target, failure, latency);
    }
  }

  /**
   * The call broke after it answered, and its recovery will ask this same target first (it is the
   * only one that can continue it). The failure is observed like {@link #failure}; the breaker
   * verdict of a HALF_OPEN trial is left to the recovery call: its slot is freed without counting,
   * so the recovery call becomes the next trial instead of being shut out by a circuit the break
   * just reopened (issue 9, item 11). Any other call counts the failure as {@link #failure} does.
   */
  public void failureRecoveredHere(Failure failure) {
    if (!permit.trial()) {
      failure(failure);
    } else if (done.compareAndSet(false, true)) {
      permit.cancelled();
      observer.onFailure(target, failure, latency);
    }
  }

  /**
   * Settles {@code permit} for a failed call: a failure if its kind counts against the target's
   * health, otherwise no verdict (a client error or cancellation says nothing about the target).
   */
  static void settle(Permit permit, Failure failure) {
    if (failure.kind().countsForBreaker()) {
      permit.failure();
    } else {
      permit.cancelled();
    }
  }

  /** The client went away: no verdict on the target. */
  public void cancelled() {
    if (done.compareAndSet(false, true)) {
      permit.cancelled();
    }
  }

  public boolean isDone() {
    return done.get();
  }
}
