package dev.levee.emulator;

import dev.levee.core.time.Sleeper;
import java.time.Duration;

/**
 * The pace of one answer.
 *
 * @param timeToFirstToken pause before the first content delta
 * @param deltaDelay pause before every further delta
 * @param pingInterval how often a stalled stream pings; zero for never
 * @param sleeper how pauses are taken
 */
record Timing(Duration timeToFirstToken, Duration deltaDelay, Duration pingInterval, Sleeper sleeper) {

  static Timing of(EmulatorOptions options) {
    return new Timing(options.timeToFirstToken(), options.deltaDelay(), options.pingInterval(), options.sleeper());
  }

  /** This timing with a phase's overrides (null keeps the current value). */
  Timing with(Duration ttft, Duration delay) {
    return new Timing(ttft == null ? timeToFirstToken : ttft, delay == null ? deltaDelay : delay, pingInterval,
        sleeper);
  }
}
