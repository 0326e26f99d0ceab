package dev.levee.anthropic.stream;

import java.util.Arrays;

/**
 * Counts content deltas that repeat the one just before them byte for byte, at the same block: a
 * suspected replayed event. Such pairs are dropped only when configured, because a model may
 * genuinely stream the same chunk twice ({@code " very"}, {@code " very"}). Not thread-safe.
 */
final class DuplicateCounter {

  private final boolean drop;
  private int lastIndex = -1; // upstream index of the last content delta, -1 after a block boundary
  private byte[] lastData;
  private long count;

  /** @param drop whether a suspected duplicate is dropped (else only counted) */
  DuplicateCounter(boolean drop) {
    this.drop = drop;
  }

  /** Takes a content delta of upstream block {@code index}; true when it is to be dropped. */
  boolean dropDelta(int index, byte[] data) {
    if (index == lastIndex && Arrays.equals(data, lastData)) {
      count++;
      return drop;
    }
    lastIndex = index;
    lastData = data;
    return false;
  }

  /** A block started or stopped, or an attempt began: the next delta repeats nothing. */
  void boundary() {
    lastIndex = -1;
  }

  /** Suspected duplicates so far, dropped or not. */
  long count() {
    return count;
  }
}
