package dev.levee.anthropic.sse;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes server-sent events byte for byte as the Messages API does: {@code event: <name>\n},
 * one {@code data: <line>\n} per line of data, then a blank line. {@link #write(SseEvent)}
 * flushes so the event reaches the client at once; a relay may defer the flush to the last of a
 * burst ({@link #write(SseEvent, boolean)}).
 *
 * <p>Not thread-safe; one writer per response.
 */
public final class SseWriter {

  private final OutputStream out;

  public SseWriter(OutputStream out) {
    this.out = out;
  }

  /** The exact bytes of one event. */
  public static byte[] encode(SseEvent event) {
    StringBuilder text = new StringBuilder(event.data().length() + event.event().length() + 16);
    text.append("event: ").append(event.event()).append('\n');
    int from = 0;
    String data = event.data();
    while (true) {
      int newline = data.indexOf('\n', from);
      text.append("data: ").append(data, from, newline < 0 ? data.length() : newline).append('\n');
      if (newline < 0) {
        break;
      }
      from = newline + 1;
    }
    return text.append('\n').toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Writes and flushes one event. */
  public void write(SseEvent event) throws IOException {
    write(event, true);
  }

  /**
   * Writes one event; flushes only when asked. A relay that knows more events are already at
   * hand writes them and flushes once: fewer system calls, no added latency.
   */
  public void write(SseEvent event, boolean flush) throws IOException {
    out.write(encode(event));
    if (flush) {
      out.flush();
    }
  }
}
