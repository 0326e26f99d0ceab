package dev.levee.cli.drill;

import dev.levee.core.time.ManualClock;
import java.util.concurrent.TimeUnit;

/**
 * The drill's time: milliseconds since {@link #start()}, advanced by {@link #waitUntil(long)}.
 * Embedded, it is the virtual clock the emulator and gateway run on, moved forward by the drill
 * itself and paced to at most {@code speed} times real time; against a running pair, it is the
 * wall clock multiplied by {@code speed}.
 */
interface DrillClock {

  /** Time zero of the drill: now. */
  void start();

  /** Drill milliseconds since {@link #start()}. */
  long nowMs();

  /** Returns at drill time {@code drillMs} (at once when it has passed). */
  void waitUntil(long drillMs) throws InterruptedException;

  /** Emulator milliseconds per drill millisecond (how to write the storm's schedule). */
  double emulatorScale();

  /** Virtual time shared with an embedded emulator and gateway. */
  static DrillClock virtual(ManualClock clock, double speed) {
    return new DrillClock() {
      private long zeroNanos;
      private long realZero;

      @Override
      public void start() {
        zeroNanos = clock.nanos();
        realZero = System.nanoTime();
      }

      @Override
      public long nowMs() {
        return (clock.nanos() - zeroNanos) / 1_000_000L;
      }

      @Override
      public void waitUntil(long drillMs) throws InterruptedException {
        pace(realZero, drillMs, speed);
        long behind = drillMs - nowMs();
        if (behind > 0) {
          clock.advance(java.time.Duration.ofMillis(behind));
        }
      }

      @Override
      public double emulatorScale() {
        return 1;
      }
    };
  }

  /** The wall clock, {@code speed} drill seconds per real second. */
  static DrillClock wall(double speed) {
    return new DrillClock() {
      private long realZero;

      @Override
      public void start() {
        realZero = System.nanoTime();
      }

      @Override
      public long nowMs() {
        return (long) ((System.nanoTime() - realZero) / 1e6 * speed);
      }

      @Override
      public void waitUntil(long drillMs) throws InterruptedException {
        pace(realZero, drillMs, speed);
      }

      @Override
      public double emulatorScale() {
        return 1 / speed;
      }
    };
  }

  private static void pace(long realZero, long drillMs, double speed) throws InterruptedException {
    long due = realZero + (long) (drillMs * 1e6 / speed);
    long left = due - System.nanoTime();
    if (left > 0) {
      TimeUnit.NANOSECONDS.sleep(left);
    }
  }
}
