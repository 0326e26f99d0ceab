package dev.levee.anthropic.sse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * A tolerant reader of a {@code text/event-stream} (WHATWG HTML "Server-sent events").
 *
 * <p>Accepts LF, CRLF and CR line endings; skips comment lines ({@code :keep-alive}); joins
 * multi-line {@code data:} fields with {@code \n}; strips one leading space after the colon;
 * ignores {@code id:} and {@code retry:}; keeps events of any name, known or not. An event is
 * complete only at its terminating blank line: a partial event at end of input is dropped (the
 * caller sees a stream that ended without its last event, e.g. without {@code message_stop}).
 *
 * <p>Not thread-safe; one reader per stream. Reads through its own buffer, so the underlying
 * stream may be unbuffered.
 */
public final class SseReader implements AutoCloseable {

  private final InputStream in;
  private final byte[] buffer = new byte[8192];
  private int position;
  private int limit;
  private boolean skipLf; // the previous line ended in CR; an LF right after it belongs to it
  private boolean eof;

  public SseReader(InputStream in) {
    this.in = in;
  }

  /**
   * The next complete event, or null at end of stream.
   *
   * @throws IOException when reading fails (connection reset, stream closed by a watchdog)
   */
  public SseEvent next() throws IOException {
    String event = null;
    StringBuilder data = null;
    String line;
    while ((line = readLine()) != null) {
      if (line.isEmpty()) {
        if (data != null) {
          return new SseEvent(event == null ? "message" : event, data.toString());
        }
        event = null; // an event without data is not dispatched (per the SSE spec)
        continue;
      }
      if (line.charAt(0) == ':') {
        continue;
      }
      int colon = line.indexOf(':');
      String field = colon < 0 ? line : line.substring(0, colon);
      String value = colon < 0 ? "" : line.substring(colon + 1);
      if (value.startsWith(" ")) {
        value = value.substring(1);
      }
      switch (field) {
        case "event" -> event = value;
        case "data" -> {
          if (data == null) {
            data = new StringBuilder(value);
          } else {
            data.append('\n').append(value);
          }
        }
        default -> { } // id, retry and unknown fields carry nothing Levee needs
      }
    }
    return null;
  }

  /**
   * Whether a whole event is already at hand, so that {@link #next()} will not wait for the
   * upstream: bytes the upstream already delivered are taken in without blocking to tell. Lets a
   * relay gather the events of one upstream read into one write, and flush before it would wait.
   * False when unsure (a partial event, an event longer than the buffer): then the relay flushes,
   * so no event is ever held waiting for another.
   */
  public boolean ready() {
    if (eventBuffered()) {
      return true;
    }
    if (eof) {
      return false;
    }
    try {
      int available = in.available();
      if (available <= 0) {
        return false;
      }
      if (position > 0) { // compact: between events no partial line is held elsewhere
        System.arraycopy(buffer, position, buffer, 0, limit - position);
        limit -= position;
        position = 0;
      }
      if (limit == buffer.length) {
        return false;
      }
      int n = in.read(buffer, limit, Math.min(available, buffer.length - limit));
      if (n < 0) {
        eof = true;
        return false;
      }
      limit += n;
      return eventBuffered();
    } catch (IOException e) {
      return false; // the next read will report it
    }
  }

  /** Whether the buffer holds a blank line ending an event with at least one field line. */
  private boolean eventBuffered() {
    int i = position;
    if (skipLf && i < limit && buffer[i] == '\n') {
      i++;
    }
    boolean lineStart = true;
    boolean field = false; // the current line is a field (not a comment)
    boolean fields = false; // a field line has ended since position
    for (; i < limit; i++) {
      byte b = buffer[i];
      if (b == '\n' || b == '\r') {
        if (lineStart && fields) {
          return true;
        }
        fields |= !lineStart && field;
        if (b == '\r' && i + 1 < limit && buffer[i + 1] == '\n') {
          i++;
        }
        lineStart = true;
      } else if (lineStart) {
        field = b != ':';
        lineStart = false;
      }
    }
    return false;
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = null;
    while (true) {
      if (position == limit && !fill()) {
        return null; // a line without its end is part of an event that never completed
      }
      int start = position;
      while (position < limit) {
        byte b = buffer[position];
        if (skipLf) {
          skipLf = false;
          if (b == '\n') {
            position++;
            start = position;
            continue;
          }
        }
        if (b == '\n' || b == '\r') {
          String text = decode(line, start, position);
          skipLf = b == '\r';
          position++;
          return text;
        }
        position++;
      }
      if (line == null) {
        line = new ByteArrayOutputStream();
      }
      line.write(buffer, start, position - start);
    }
  }

  private String decode(ByteArrayOutputStream head, int start, int end) {
    if (head == null) {
      return new String(buffer, start, end - start, StandardCharsets.UTF_8);
    }
    head.write(buffer, start, end - start);
    return head.toString(StandardCharsets.UTF_8);
  }

  private boolean fill() throws IOException {
    if (eof) {
      return false;
    }
    int n = in.read(buffer, 0, buffer.length);
    if (n <= 0) {
      eof = true;
      return false;
    }
    position = 0;
    limit = n;
    return true;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
