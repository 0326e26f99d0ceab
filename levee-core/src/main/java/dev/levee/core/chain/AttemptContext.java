package dev.levee.core.chain;

import dev.levee.core.deadline.Deadline;
import java.time.Duration;

/**
 * What an {@link Attempt} needs to know about itself.
 *
 * @param target the target to call
 * @param call 1-based number of this upstream call among all calls for the request
 * @param retry 0 for the first call to this target, then 1, 2, ...
 * @param fallback whether an earlier target of the chain was tried or skipped
 * @param timeout the time this call may take: {@code min(attempt-timeout, deadline left)}
 * @param deadline the request's deadline
 * @param control the link to the chain for a hedged call ({@link AttemptControl#NONE} otherwise):
 *     report the first byte to it, and stop when it aborts the call
 */
public record AttemptContext(
    Target target, int call, int retry, boolean fallback, Duration timeout, Deadline deadline,
    AttemptControl control) {

  public AttemptContext {
    control = control == null ? AttemptControl.NONE : control;
  }

  /** A call that is not part of a hedged pair. */
  public AttemptContext(Target target, int call, int retry, boolean fallback, Duration timeout, Deadline deadline) {
    this(target, call, retry, fallback, timeout, deadline, AttemptControl.NONE);
  }
}
