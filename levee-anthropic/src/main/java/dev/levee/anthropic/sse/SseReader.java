package dev.levee.anthropic.sse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A tolerant reader of a {@code text/event-stream} (WHATWG HTML "Server-sent events").
 *
 * <p>Accepts LF, CRLF and CR line endings; skips comment lines ({@code :keep-alive}); joins
 * multi-line {@code data:} fields with {@code \n}; strips one leading space after the colon;
 * ignores {@code id:} and {@code retry:}; keeps events of any name, known or not. An event is
 * complete only at its terminating blank line: a partial event at end of input is dropped (the
 * caller sees a stream that ended without its last event, e.g. without {@code message_stop}).
 *
 * <p>Works on the bytes: an event's data is copied once out of the buffer, as the UTF-8 bytes that
 * arrived (no per-line strings); the Messages API's event names are shared constants. The buffer
 * starts at {@value #INITIAL_BUFFER} bytes, so that an idle stream holds little, and doubles
 * whenever one event does not fit. A burst takes few reads: after a read that filled the room it
 * was given, or when more bytes are at hand than the buffer has room for, the buffer doubles, up to
 * {@value #BURST_BUFFER} bytes, so events that arrived together are read, parsed and relayed
 * together; before a read that would wait it goes back to {@value #INITIAL_BUFFER} bytes, or to
 * twice what it keeps of a partial event. One event may hold at most {@value #MAX_EVENT_BYTES}
 * bytes: past that the read fails ({@link SseEventTooLargeException}) rather than hold more.
 *
 * <p>Not thread-safe; one reader per stream. Reads through its own buffer, so the underlying
 * stream may be unbuffered.
 */
public final class SseReader implements AutoCloseable {

  /**
   * The buffer's first size, in bytes, and its size again whenever it is empty before a read that
   * would wait (a burst grows it, up to {@link #BURST_BUFFER}): a slow stream's events are a few
   * hundred bytes, and 10,000 idle streams then hold 2.5 MiB of buffers here, not 10 or more.
   */
  static final int INITIAL_BUFFER = 256;

  /**
   * The most the buffer grows to for a burst of events, in bytes (one event larger than this still
   * gets a buffer it fits in).
   */
  static final int BURST_BUFFER = 16 * 1024;

  /**
   * The most one event may hold before it ends, in bytes: 32 MiB. An event that grows past it
   * without its blank line (one endless line, or data lines adding up) fails the read with {@link
   * SseEventTooLargeException}, so that one broken upstream body cannot take the heap every other
   * stream needs. Far above what the Messages API sends in one event: deltas are small, and the
   * largest events, a {@code content_block_start} carrying a server tool's result whole (a fetched
   * document), hold content a client sends back in its next request, which the API caps at 32 MB.
   * The buffer never grows past it (it doubles from {@value #INITIAL_BUFFER} to exactly this), so
   * a reader takes in at most this plus the bytes before the event before it fails.
   */
  public static final int MAX_EVENT_BYTES = 32 * 1024 * 1024;

  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final byte[] EVENT = ascii("event");
  private static final byte[] DATA = ascii("data");
  private static final String[] NAMES = {"content_block_delta", "content_block_start", "content_block_stop",
      "message_start", "message_delta", "message_stop", "ping", "error", "message"};
  private static final byte[][] NAME_BYTES = Arrays.stream(NAMES).map(SseReader::ascii).toArray(byte[][]::new);

  private final InputStream in;
  private byte[] buffer = new byte[INITIAL_BUFFER];
  private int position; // where the unread bytes start: between events, the next event's first byte
  private int limit;
  private long base; // the stream offset of buffer[0]: bytes moved out of the buffer so far
  private boolean skipLf; // the line before position ended in CR; an LF right after it belongs to it
  private boolean eof;
  private boolean filled; // the last read filled the room it was given: more is likely at hand
  private SseEvent ready; // an event ready() found, for next()

  public SseReader(InputStream in) {
    this.in = in;
  }

  /**
   * The next complete event, or null at end of stream.
   *
   * @throws SseEventTooLargeException when the event grew past {@link #MAX_EVENT_BYTES} unended
   * @throws IOException when reading fails (connection reset, stream closed by a watchdog)
   */
  public SseEvent next() throws IOException {
    SseEvent event = ready;
    if (event != null) {
      ready = null;
      return event;
    }
    return parse(true);
  }

  /**
   * Whether a whole event is already at hand, so that {@link #next()} will not wait for the
   * upstream: bytes the upstream already delivered are taken in without blocking to tell. Lets a
   * relay gather the events of one upstream read into one write, and flush before it would wait.
   * False when unsure (a partial event whose rest has not arrived): then the relay flushes, so no
   * event is ever held waiting for another. The event found is kept for {@link #next()}: its
   * bytes are scanned once. A large event arriving in many reads is parsed again only after a read
   * that brought a line end, so taking it in stays linear in its size.
   */
  public boolean ready() {
    if (ready != null) {
      return true;
    }
    try {
      while ((ready = parse(false)) == null) {
        int from;
        do { // parse(false) stopped at a line without its end: only a CR or LF read now can end the event
          int available = eof ? 0 : in.available();
          if (available <= 0) {
            return false;
          }
          compact(position); // between events no partial line is held elsewhere
          roomFor(available);
          int room = Math.min(available, buffer.length - limit);
          int n = in.read(buffer, limit, room);
          if (n < 0) {
            eof = true;
            return false;
          }
          filled = n == buffer.length - limit;
          from = limit;
          limit += n;
        } while (lineEnd(from) < 0); // else parsing the event again from its start each read is quadratic
      }
      return true;
    } catch (IOException e) {
      return false; // the next read will report it
    }
  }

  /**
   * The next event from the buffer, reading more when {@code mayRead} (else null when it is not
   * all here, the buffer's state as before). Null at end of stream.
   */
  private SseEvent parse(boolean mayRead) throws IOException {
    String event = null;
    int dataStart = -1; // the first data line's value, while it is the only one: still in the buffer
    int dataEnd = -1;
    ByteArrayOutputStream lines = null; // the data so far once there are several data lines
    long start = base + position; // the event's first byte in the stream, for the bound on data lines
    int line = position;
    int scanned = 0; // the bytes before this hold no line end of the line at line: a long line is scanned once
    boolean lf = skipLf; // skipLf as of line
    while (true) {
      if (lf && line < limit) {
        lf = false;
        if (buffer[line] == '\n') {
          line++;
        }
      }
      int end = lf ? -1 : lineEnd(scanned > line ? scanned : line);
      if (end < 0) { // the line is not all here: keep what the event still needs, read more
        if (!mayRead) {
          return null;
        }
        scanned = limit;
        int shift = more(dataStart >= 0 ? dataStart : line);
        if (shift < 0) {
          return null; // a line without its end is part of an event that never completed
        }
        scanned -= shift;
        line -= shift;
        if (dataStart >= 0) {
          dataStart -= shift;
          dataEnd -= shift;
        }
        continue;
      }
      lf = buffer[end] == '\r';
      int next = end + 1;
      if (lf && next < limit) {
        lf = false;
        if (buffer[next] == '\n') {
          next++;
        }
      }
      if (end == line) { // a blank line ends the event
        position = next;
        skipLf = lf;
        if (dataStart >= 0) {
          return new SseEvent(event == null ? "message" : event, Arrays.copyOfRange(buffer, dataStart, dataEnd), true);
        }
        if (lines != null) {
          return new SseEvent(event == null ? "message" : event, lines.toByteArray());
        }
        event = null; // an event without data is not dispatched (per the SSE spec)
      } else if (buffer[line] != ':') { // a comment line carries nothing
        int colon = indexOf(':', line, end);
        int fieldEnd = colon < 0 ? end : colon;
        int value = colon < 0 ? end : colon + 1;
        if (value < end && buffer[value] == ' ') {
          value++;
        }
        if (is(EVENT, line, fieldEnd)) {
          event = name(value, end);
        } else if (is(DATA, line, fieldEnd)) {
          if (dataStart < 0 && lines == null) {
            dataStart = value;
            dataEnd = end;
          } else {
            if (base + next - start > MAX_EVENT_BYTES) { // the buffer keeps only this line: count them all
              throw new SseEventTooLargeException(MAX_EVENT_BYTES);
            }
            if (lines == null) {
              lines = new ByteArrayOutputStream();
              lines.write(buffer, dataStart, dataEnd - dataStart);
              dataStart = -1;
            }
            lines.write('\n');
            lines.write(buffer, value, end - value);
          }
        } // id, retry and unknown fields carry nothing Levee needs
      }
      line = next;
    }
  }

  /**
   * The index of the CR or LF ending the line that starts at {@code from}, or -1 when not buffered.
   * Looks at eight bytes a step (a data line is hundreds of bytes): a byte of the word XORed with
   * CR or LF is zero exactly where the word holds one, and {@code (x - 0x01..) & ~x & 0x80..} marks
   * the lowest zero byte of {@code x} truly (a false mark can only sit above a true one).
   */
  private int lineEnd(int from) {
    int i = from;
    for (; i <= limit - Long.BYTES; i += Long.BYTES) {
      long word = (long) LONGS.get(buffer, i);
      long lf = word ^ 0x0A0A0A0A0A0A0A0AL;
      long cr = word ^ 0x0D0D0D0D0D0D0D0DL;
      long found = ((lf - 0x0101010101010101L) & ~lf | (cr - 0x0101010101010101L) & ~cr) & 0x8080808080808080L;
      if (found != 0) {
        return i + (Long.numberOfTrailingZeros(found) >>> 3);
      }
    }
    for (; i < limit; i++) {
      byte b = buffer[i];
      if (b == '\n' || b == '\r') {
        return i;
      }
    }
    return -1;
  }

  private int indexOf(char c, int from, int to) {
    for (int i = from; i < to; i++) {
      if (buffer[i] == c) {
        return i;
      }
    }
    return -1;
  }

  private boolean is(byte[] field, int from, int to) {
    return Arrays.equals(buffer, from, to, field, 0, field.length);
  }

  /** The event name: the API's names as shared constants, any other decoded. */
  private String name(int from, int to) {
    for (int i = 0; i < NAMES.length; i++) {
      if (is(NAME_BYTES[i], from, to)) {
        return NAMES[i];
      }
    }
    return new String(buffer, from, to - from, StandardCharsets.UTF_8);
  }

  /**
   * Reads more, keeping the bytes from {@code keep} on (moved to the buffer's start, the buffer
   * doubled when they fill it); returns how far they moved, or -1 at end of stream.
   */
  private int more(int keep) throws IOException {
    if (eof) {
      return -1;
    }
    compact(keep);
    boolean grown = buffer.length > INITIAL_BUFFER;
    int available = grown || filled ? in.available() : 0; // asked only when it decides something
    if (grown && available == 0 && limit < buffer.length / 2) {
      // about to wait: do not hold a buffer grown for a burst meanwhile, only one the kept bytes fit in
      int size = INITIAL_BUFFER;
      while (size < 2 * limit) {
        size *= 2;
      }
      if (size < buffer.length) { // else the kept bytes need all of it: no copy of the same size
        buffer = Arrays.copyOf(buffer, size);
      }
      filled = false;
    } else {
      roomFor(filled ? Math.max(available, buffer.length - limit + 1) : available);
    }
    int room = buffer.length - limit;
    int n = in.read(buffer, limit, room);
    if (n <= 0) {
      eof = true;
      return -1;
    }
    filled = n == room;
    limit += n;
    return keep;
  }

  /**
   * Grows the buffer when it is full (doubled: one event does not fit, up to {@link
   * #MAX_EVENT_BYTES}), or when {@code wanted} more bytes would not fit (doubled until they do, up
   * to {@value #BURST_BUFFER}).
   *
   * @throws SseEventTooLargeException when full at {@link #MAX_EVENT_BYTES}: the part of one event
   *     it keeps has no end in sight
   */
  private void roomFor(int wanted) throws SseEventTooLargeException {
    int size = buffer.length;
    if (limit == size) {
      if (size >= MAX_EVENT_BYTES) {
        throw new SseEventTooLargeException(MAX_EVENT_BYTES);
      }
      size *= 2;
    }
    while (size - limit < wanted && size < BURST_BUFFER) {
      size *= 2;
    }
    if (size != buffer.length) {
      buffer = Arrays.copyOf(buffer, size);
    }
  }

  /** Moves the bytes from {@code keep} to the buffer's start. */
  private void compact(int keep) {
    if (keep > 0) {
      System.arraycopy(buffer, keep, buffer, 0, limit - keep);
      base += keep;
      limit -= keep;
      position = Math.max(0, position - keep);
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /** The read buffer's capacity in bytes (tests watch its memory). */
  int bufferCapacity() {
    return buffer.length;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
