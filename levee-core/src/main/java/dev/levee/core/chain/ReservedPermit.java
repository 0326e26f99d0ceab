package dev.levee.core.chain;

import dev.levee.core.breaker.Permit;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A breaker permit of one target taken before the call that is to use it: the gateway's queue takes
 * a target's half-open trial permit before it claims the job that will be the trial call, so that
 * only the replica holding the trial — the cluster's one, under a shared breaker — runs that job.
 * {@link FallbackChain} uses it for its first call to the target instead of asking the target's
 * breaker (which would refuse: the trial slot is taken, by this very permit). Whoever reserved it
 * calls {@link #release} once the run ended: a permit no call used (the chain stopped before the
 * target, or never reached it) is settled {@link Permit#cancelled() cancelled}, which frees the
 * trial slot at once rather than when the breaker's trial lease runs out. Thread-safe.
 */
public final class ReservedPermit {

  /** No permit reserved: every target's breaker is asked as usual. */
  public static final ReservedPermit NONE = new ReservedPermit();

  private final Target target;
  private final AtomicReference<Permit> permit;

  private ReservedPermit() {
    this.target = null;
    this.permit = new AtomicReference<>();
  }

  /** {@code permit}, unsettled, admitted by the breaker of {@code target}. */
  public ReservedPermit(Target target, Permit permit) {
    this.target = Objects.requireNonNull(target, "target");
    this.permit = new AtomicReference<>(Objects.requireNonNull(permit, "permit"));
  }

  /** The target whose breaker admitted the permit; null for {@link #NONE}. */
  public Target target() {
    return target;
  }

  /** The permit for a call to {@code to}, once: null when it is another target's, or was taken or released. */
  public Permit take(Target to) {
    return to.equals(target) ? permit.getAndSet(null) : null;
  }

  /**
   * Settles the permit as cancelled when no call took it; nothing when one did (that call settles
   * it). Returns whether it was unused.
   */
  public boolean release() {
    Permit unused = permit.getAndSet(null);
    if (unused == null || unused.isSettled()) {
      return false;
    }
    unused.cancelled();
    return true;
  }

  @Override
  public String toString() {
    return target == null ? "ReservedPermit[none]" : "ReservedPermit[" + target.id() + "]";
  }
}
