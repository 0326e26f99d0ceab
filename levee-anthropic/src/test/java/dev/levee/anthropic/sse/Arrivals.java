package dev.levee.anthropic.sse;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * An upstream body that hands out one arrival at a time, the first there from the start: a read
 * takes at most what is left of the current one, and {@code available()} is what is left of it (0:
 * the next has not come yet). Records the length of each read.
 */
final class Arrivals extends InputStream {

  private final Deque<byte[]> arrivals = new ArrayDeque<>();
  private byte[] current;
  private int at;
  /** The length of each read, in bytes. */
  final List<Integer> reads = new ArrayList<>();

  Arrivals(String... arrivals) {
    for (String a : arrivals) {
      this.arrivals.add(a.getBytes(StandardCharsets.UTF_8));
    }
    current = this.arrivals.isEmpty() ? new byte[0] : this.arrivals.poll();
  }

  @Override
  public int read() {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) {
    if (at == current.length) {
      if (arrivals.isEmpty()) {
        return -1;
      }
      current = arrivals.poll();
      at = 0;
    }
    int n = Math.min(len, current.length - at);
    System.arraycopy(current, at, b, off, n);
    at += n;
    reads.add(n);
    return n;
  }

  @Override
  public int available() {
    return current.length - at;
  }
}
