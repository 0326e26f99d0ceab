package dev.levee.core.testing;

import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * A {@link RandomGenerator} whose {@code nextDouble()} draws are pinned by the test, so that
 * jitter formulas can be checked against exact values.
 *
 * <p>{@link #always(double)} returns the same draw forever; {@link #of(double...)} returns the
 * given draws in order and fails the test on one draw too many. Every other kind of draw fails:
 * Levee's policies draw only uniform doubles.
 */
public final class ScriptedRandom implements RandomGenerator {

  /** The largest double below 1: the top of U(0,1). */
  public static final double ALMOST_ONE = Math.nextDown(1.0);

  private final double[] draws;
  private final boolean repeatLast;
  private int taken;

  private ScriptedRandom(double[] draws, boolean repeatLast) {
    for (double u : draws) {
      if (!(u >= 0 && u < 1)) {
        throw new IllegalArgumentException("a U(0,1) draw is in [0, 1), was " + u);
      }
    }
    this.draws = draws;
    this.repeatLast = repeatLast;
  }

  /** Every draw returns {@code u}. */
  public static ScriptedRandom always(double u) {
    return new ScriptedRandom(new double[] {u}, true);
  }

  /** Returns {@code draws} in order; one more draw fails. */
  public static ScriptedRandom of(double... draws) {
    return new ScriptedRandom(draws.clone(), false);
  }

  /** How many draws were taken. */
  public synchronized int taken() {
    return taken;
  }

  @Override
  public synchronized double nextDouble() {
    if (taken < draws.length) {
      return draws[taken++];
    }
    if (repeatLast) {
      taken++;
      return draws[draws.length - 1];
    }
    throw new AssertionError("unexpected draw #" + (taken + 1) + "; scripted " + Arrays.toString(draws));
  }

  @Override
  public long nextLong() {
    throw new AssertionError("policies should draw uniform doubles, not longs");
  }
}
