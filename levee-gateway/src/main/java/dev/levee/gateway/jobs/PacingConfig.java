package dev.levee.gateway.jobs;

import java.time.Duration;

/**
 * The {@code queue.pacing:} section: how the worker pool steps aside for interactive requests
 * (see {@link Pacing}). On by default; every field has a default that needs no tuning.
 *
 * @param enabled {@code false} drains at {@code queue.workers} whatever the interactive traffic
 *     (default {@code true})
 * @param yieldFor for how long after an interactive request starts or ends no job starts (default
 *     5 ms; 0–1 s)
 * @param sharedWorkers the most jobs at once while interactive requests are in flight or were seen
 *     within {@code shared-for} (default 1; 1 up to {@code queue.workers})
 * @param sharedFor how long after the last interactive request the pool stays at {@code
 *     shared-workers} before it drains at full speed; also the longest queued work waits for a
 *     start under continuous interactive traffic (default 1 s; 1 ms–1 min)
 */
public record PacingConfig(Boolean enabled, Duration yieldFor, Integer sharedWorkers, Duration sharedFor) {

  public PacingConfig {
    enabled = enabled == null || enabled;
    yieldFor = yieldFor == null ? Duration.ofMillis(5) : yieldFor;
    sharedWorkers = sharedWorkers == null ? 1 : sharedWorkers;
    sharedFor = sharedFor == null ? Duration.ofSeconds(1) : sharedFor;
    if (yieldFor.isNegative() || yieldFor.compareTo(Duration.ofSeconds(1)) > 0) {
      throw new IllegalArgumentException("pacing.yield-for must be 0-1s, was " + yieldFor);
    }
    if (sharedWorkers < 1) {
      throw new IllegalArgumentException("pacing.shared-workers must be 1 or more, was " + sharedWorkers);
    }
    if (sharedFor.compareTo(Duration.ofMillis(1)) < 0 || sharedFor.compareTo(Duration.ofMinutes(1)) > 0) {
      throw new IllegalArgumentException("pacing.shared-for must be 1ms-1m, was " + sharedFor);
    }
  }

  /** Every default: on, 5 ms, 1 job, 1 s. */
  public static PacingConfig defaults() {
    return new PacingConfig(null, null, null, null);
  }

  /** Pacing off: always {@code queue.workers} jobs at once. */
  public static PacingConfig off() {
    return new PacingConfig(false, null, null, null);
  }
}
