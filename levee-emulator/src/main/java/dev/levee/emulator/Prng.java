package dev.levee.emulator;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators", 2014): a tiny
 * generator whose output depends on nothing but its seed, so answers stay identical across JDKs.
 * Not thread-safe.
 */
final class Prng {

  private long state;

  Prng(long seed) {
    this.state = seed;
  }

  long nextLong() {
    long z = (state += 0x9E3779B97F4A7C15L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** A value in {@code [0, bound)}. */
  int nextInt(int bound) {
    return (int) Math.floorMod(nextLong(), (long) bound);
  }

  /** A value in {@code [low, high]}. */
  int between(int low, int high) {
    return low + nextInt(high - low + 1);
  }

  /** A value in {@code [0, 1)}. */
  double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }

  /** The first 8 bytes of the SHA-256 of the parts, each followed by a NUL separator. */
  static long hash(String... parts) {
    byte[] digest = sha256(String.join("\0", parts) + "\0");
    long h = 0;
    for (int i = 0; i < 8; i++) {
      h = (h << 8) | (digest[i] & 0xFF);
    }
    return h;
  }

  static byte[] sha256(String text) {
    return sha256(text.getBytes(StandardCharsets.UTF_8));
  }

  static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
