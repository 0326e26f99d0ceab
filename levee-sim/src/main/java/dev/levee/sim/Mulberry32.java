package dev.levee.sim;

import java.util.random.RandomGenerator;

/**
 * The mulberry32 generator (Tommy Ettinger, 2017): 32 bits of state, one 32-bit output per step,
 * bit-for-bit the same sequence as the JavaScript function used by the published retry-budget
 * study, so that its seeded tables can be reproduced exactly.
 *
 * <pre>
 *   a ← a + 0x6D2B79F5
 *   t ← imul(a ⊕ (a ⋙ 15), 1 | a)
 *   t ← (t + imul(t ⊕ (t ⋙ 7), 61 | t)) ⊕ t
 *   out ← t ⊕ (t ⋙ 14)            (read as unsigned)
 * </pre>
 *
 * <p>{@link #nextDouble()} is {@code out / 2^32} (one step, 32 bits of resolution, as in the
 * JavaScript original), not the JDK's default 53-bit construction; {@link #nextInt()} is one
 * step; {@link #nextLong()} is two steps, high word first. Not a cryptographic generator, and not
 * thread-safe: a simulation run owns its generator.
 */
public final class Mulberry32 implements RandomGenerator {

  private int state;

  /** @param seed the 32-bit seed (the study uses 20260921) */
  public Mulberry32(int seed) {
    this.state = seed;
  }

  @Override
  public int nextInt() {
    int a = state += 0x6D2B79F5;
    int t = (a ^ (a >>> 15)) * (1 | a);
    t = (t + ((t ^ (t >>> 7)) * (61 | t))) ^ t;
    return t ^ (t >>> 14);
  }

  @Override
  public long nextLong() {
    return ((long) nextInt() << 32) | (nextInt() & 0xFFFF_FFFFL);
  }

  /** One step as an unsigned 32-bit fraction: {@code out / 2^32}, in {@code [0, 1)}. */
  @Override
  public double nextDouble() {
    return (nextInt() & 0xFFFF_FFFFL) * 0x1.0p-32;
  }
}
