package dev.levee.anthropic.sse;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes server-sent events byte for byte as the Messages API does: {@code event: <name>\n},
 * one {@code data: <line>\n} per line of data, then a blank line.
 *
 * <p>Events are gathered in the writer's own buffer and reach the underlying stream in one write
 * when flushed: {@link #write(SseEvent)} flushes at once; a relay that knows more events are
 * already at hand writes them with {@link #write(SseEvent, boolean) write(event, false)} and
 * flushes with the last, so the events of one upstream read leave in one socket write and no
 * event waits for another. A burst beyond {@value #WRITE_THROUGH} bytes is written through
 * without waiting for the flush.
 *
 * <p>Not thread-safe; one writer per response.
 */
public final class SseWriter {

  /** Bytes gathered beyond which they are written (not flushed) without waiting for the flush. */
  static final int WRITE_THROUGH = 64 * 1024;

  private final OutputStream out;
  private byte[] buffer = new byte[4096];
  private int count;

  public SseWriter(OutputStream out) {
    this.out = out;
  }

  /** The exact bytes of one event. */
  public static byte[] encode(SseEvent event) {
    SseWriter writer = new SseWriter(OutputStream.nullOutputStream());
    writer.append(event);
    return Arrays.copyOf(writer.buffer, writer.count);
  }

  /** Writes and flushes one event (and any gathered before it). */
  public void write(SseEvent event) throws IOException {
    write(event, true);
  }

  /**
   * Gathers one event; writes and flushes everything gathered when asked, or when it exceeds
   * {@value #WRITE_THROUGH} bytes (then written, not flushed).
   */
  public void write(SseEvent event, boolean flush) throws IOException {
    append(event);
    if (flush) {
      flush();
    } else if (count >= WRITE_THROUGH) {
      out.write(buffer, 0, count);
      count = 0;
    }
  }

  /** Writes what is gathered in one write, then flushes the underlying stream. */
  public void flush() throws IOException {
    if (count > 0) {
      out.write(buffer, 0, count);
      count = 0;
    }
    out.flush();
  }

  private void append(SseEvent event) {
    ascii("event: ");
    text(event.event(), 0, event.event().length());
    put('\n');
    String data = event.data();
    int from = 0;
    while (true) {
      int newline = data.indexOf('\n', from);
      int end = newline < 0 ? data.length() : newline;
      ascii("data: ");
      text(data, from, end);
      put('\n');
      if (newline < 0) {
        break;
      }
      from = newline + 1;
    }
    put('\n');
  }

  private void ascii(String s) {
    ensure(s.length());
    for (int i = 0; i < s.length(); i++) {
      buffer[count++] = (byte) s.charAt(i);
    }
  }

  /** UTF-8 of {@code s[from, to)}: a byte per ASCII char, the JDK's encoder from the first that is not. */
  private void text(String s, int from, int to) {
    ensure(to - from);
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c >= 0x80) {
        byte[] rest = s.substring(i, to).getBytes(StandardCharsets.UTF_8);
        ensure(rest.length);
        System.arraycopy(rest, 0, buffer, count, rest.length);
        count += rest.length;
        return;
      }
      buffer[count++] = (byte) c;
    }
  }

  private void put(char c) {
    ensure(1);
    buffer[count++] = (byte) c;
  }

  private void ensure(int more) {
    if (count + more > buffer.length) {
      buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, count + more));
    }
  }
}
