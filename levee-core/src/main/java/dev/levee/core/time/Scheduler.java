package dev.levee.core.time;

import java.time.Duration;

/**
 * Runs a task once after a delay: the only way Levee starts a timer (stream watchdogs, tier
 * evaluation, any later timer).
 *
 * <p>levee-core never creates threads or executors itself: production passes a scheduler backed by
 * one daemon thread ({@code dev.levee.anthropic.time.SystemClock#scheduler()}); tests and the
 * simulator pass a {@link ManualClock}, which runs due tasks when its virtual time is advanced, so
 * a policy that fires on a timer is tested without waiting. A repeating task reschedules itself.
 *
 * <p>Tasks must be short and must not block: they share one thread. Implementations must be
 * thread-safe.
 */
@FunctionalInterface
public interface Scheduler {

  /**
   * Runs {@code task} once, {@code delay} from now (at once when zero or negative).
   *
   * @return a handle that cancels the task if it has not started yet
   */
  Scheduled schedule(Duration delay, Runnable task);

  /** A task waiting to run. */
  @FunctionalInterface
  interface Scheduled {

    /** Cancels the task; no effect if it has already run or started. Idempotent. */
    void cancel();
  }
}
