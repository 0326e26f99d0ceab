package dev.levee.anthropic.sse;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.io.RetainableByteBuffer;

/**
 * Writes server-sent events byte for byte as the Messages API does: {@code event: <name>\n},
 * one {@code data: <line>\n} per line of data, then a blank line.
 *
 * <p>Events are gathered in a buffer and reach the underlying stream in one write when flushed:
 * {@link #write(SseEvent)} flushes at once; a relay that knows more events are already at hand
 * writes them with {@link #write(SseEvent, boolean) write(event, false)} and flushes with the
 * last, so the events of one upstream read leave in one socket write and no event waits for
 * another. A burst beyond {@value #WRITE_THROUGH} bytes is written through without waiting for
 * the flush.
 *
 * <p>{@link #end()} writes what is gathered and ends the underlying stream: over an {@link Ending}
 * stream (an HTTP response's body, whose end is its last chunk) in one call, so the last events
 * and the end are handed to the server together. (Jetty 12.1's HTTP/1.1 generator still sends the
 * terminal chunk in a system call of its own after them: docs/benchmarks.md, session 17.)
 *
 * <p>The gathering buffer is borrowed from a pool shared by every writer ({@link
 * ArrayByteBufferPool}, heap buffers of 4 KiB steps, at most {@value #POOL_BYTES} bytes kept) from
 * the first event after a flush until the flush: a stream waiting for its upstream holds none.
 *
 * <p>Not thread-safe; one writer per response.
 */
public final class SseWriter {

  /** Bytes gathered beyond which they are written (not flushed) without waiting for the flush. */
  static final int WRITE_THROUGH = 64 * 1024;

  /** The most the shared pool keeps, in bytes. */
  static final long POOL_BYTES = 8L * 1024 * 1024;

  private static final ByteBufferPool POOL = new ArrayByteBufferPool(0, 4096, 2 * WRITE_THROUGH, 1024, POOL_BYTES, 0);
  private static final byte[] EVENT = ascii("event: ");
  private static final byte[] DATA = ascii("data: ");
  private static final byte[] EMPTY = {};

  /**
   * A stream whose end can go out with its last bytes in one write (an HTTP/1.1 response body:
   * its last data chunk and the terminal chunk). {@link #end()} uses it instead of a write, a flush
   * and a close.
   */
  public interface Ending {

    /** Writes {@code len} bytes of {@code b} from {@code off} (may be none) and ends the stream; blocks until written. */
    void end(byte[] b, int off, int len) throws IOException;
  }

  private final OutputStream out;
  private RetainableByteBuffer borrowed; // null between a flush and the next event
  private byte[] buffer;
  private int count;
  private boolean discarded;

  public SseWriter(OutputStream out) {
    this.out = out;
  }

  /** The exact bytes of one event. */
  public static byte[] encode(SseEvent event) {
    SseWriter writer = new SseWriter(OutputStream.nullOutputStream());
    writer.append(event);
    byte[] bytes = Arrays.copyOf(writer.buffer, writer.count);
    writer.giveBack();
    return bytes;
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
    if (discarded) {
      throw new IOException("the stream was discarded"); // no event follows an abort
    }
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
    try {
      if (count > 0) {
        out.write(buffer, 0, count);
      }
    } finally {
      giveBack();
    }
    out.flush();
  }

  /**
   * Writes what is gathered and ends the underlying stream: one write over an {@link Ending}
   * stream, else a flush and a close. Nothing may be written after it.
   */
  public void end() throws IOException {
    if (discarded) { // an aborted stream must not end as if it were finished
      throw new IOException("the stream was discarded");
    }
    if (!(out instanceof Ending ending)) {
      flush();
      out.close();
      return;
    }
    try {
      ending.end(buffer == null ? EMPTY : buffer, 0, count);
    } finally {
      giveBack();
    }
  }

  /**
   * Drops what is gathered, unwritten, and gives its buffer back to the pool: for a stream being
   * aborted (the relay failed, the client went away), whose gathered events — possibly a part of
   * one, when gathering it failed — must not follow the failure. A later {@link #write} or {@link
   * #end} throws {@link IOException} (the stream is not ended as if finished). Idempotent; writes
   * nothing to the underlying stream.
   */
  public void discard() {
    discarded = true;
    giveBack();
  }

  private void append(SseEvent event) {
    byte[] name = Names.bytes(event.event());
    byte[] data = event.dataBytes();
    ensure(EVENT.length + name.length + 1 + DATA.length + data.length + 2);
    put(EVENT);
    put(name);
    buffer[count++] = '\n';
    int from = 0;
    while (true) {
      int newline = event.oneLine() ? -1 : indexOf(data, '\n', from); // a reader's one data line: no search
      int end = newline < 0 ? data.length : newline;
      ensure(DATA.length + end - from + 2);
      put(DATA);
      System.arraycopy(data, from, buffer, count, end - from);
      count += end - from;
      buffer[count++] = '\n';
      if (newline < 0) {
        break;
      }
      from = newline + 1;
    }
    buffer[count++] = '\n';
  }

  private static int indexOf(byte[] bytes, char c, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == c) {
        return i;
      }
    }
    return -1;
  }

  private void put(byte[] bytes) {
    System.arraycopy(bytes, 0, buffer, count, bytes.length);
    count += bytes.length;
  }

  /** Room for {@code more} bytes: a buffer borrowed, or a bigger one in its place. */
  private void ensure(int more) {
    if (buffer != null && count + more <= buffer.length) {
      return;
    }
    RetainableByteBuffer bigger = POOL.acquire(Math.max(count + more, buffer == null ? 0 : buffer.length * 2), false);
    byte[] array = bigger.getByteBuffer().array();
    if (count > 0) {
      System.arraycopy(buffer, 0, array, 0, count);
    }
    if (borrowed != null) {
      borrowed.release();
    }
    borrowed = bigger;
    buffer = array;
  }

  private void giveBack() {
    if (borrowed != null) {
      borrowed.release();
      borrowed = null;
    }
    buffer = null;
    count = 0;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /** Event names as bytes: the Messages API's encoded once. */
  private static final class Names {
    private static final java.util.Map<String, byte[]> KNOWN = java.util.Map.of(
        "message_start", ascii("message_start"), "content_block_start", ascii("content_block_start"),
        "content_block_delta", ascii("content_block_delta"), "content_block_stop", ascii("content_block_stop"),
        "message_delta", ascii("message_delta"), "message_stop", ascii("message_stop"), "ping", ascii("ping"),
        "error", ascii("error"));

    static byte[] bytes(String name) {
      byte[] known = KNOWN.get(name);
      return known != null ? known : name.getBytes(StandardCharsets.UTF_8);
    }
  }
}
