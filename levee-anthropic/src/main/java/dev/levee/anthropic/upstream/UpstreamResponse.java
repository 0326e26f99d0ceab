package dev.levee.anthropic.upstream;

import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A response whose headers have arrived and whose body is still streaming. Close it on every
 * exit path: closing before the end aborts the connection rather than returning it to the pool.
 */
public final class UpstreamResponse implements AutoCloseable {

  private final int status;
  private final Map<String, List<String>> headers; // lower-case names
  private final InputStream body;
  private final AutoCloseable registration;
  private final AtomicBoolean closed = new AtomicBoolean();

  /** @param headers lower-case names to values, as {@link PlainHttp1} reads them (not copied) */
  UpstreamResponse(int status, Map<String, List<String>> headers, InputStream body, Cancellation cancellation) {
    this.status = status;
    this.headers = headers;
    this.body = body;
    this.registration = cancellation.register(this::close);
  }

  public int status() {
    return status;
  }

  /** {@code headers} with lower-case names (the JDK client's HTTP/1.1 keeps the server's case), in their order. */
  static Map<String, List<String>> lowerCase(Map<String, List<String>> headers) {
    Map<String, List<String>> lower = new LinkedHashMap<>();
    headers.forEach((name, values) -> lower.merge(name.toLowerCase(Locale.ROOT), values, (a, b) -> {
      List<String> both = new java.util.ArrayList<>(a);
      both.addAll(b);
      return both;
    }));
    return lower;
  }

  /** A header's first value by name (any case), or null. */
  public String header(String name) {
    List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /** All headers (lower-case names), read-only. */
  public Map<String, List<String>> headers() {
    return headers;
  }

  /** The body stream; reads throw {@link IOException} once the call is cancelled or times out. */
  public InputStream body() {
    return body;
  }

  /**
   * Runs {@code ready} once the body has bytes to read (or ends, or the response is closed: by its
   * watchdog, or a cancellation) instead of the caller waiting in a read, so that the caller's
   * thread may end meanwhile (issue 11: a parked virtual thread keeps its stack). Only a plain
   * {@code http:} upstream's body can wait so; nothing waits when bytes are already at hand.
   *
   * @param ready runs on another thread and must only hand off (start the thread that reads on)
   * @return whether {@code ready} will run; false: read now (it may block), {@code ready} never runs
   */
  public boolean whenReadable(Runnable ready) {
    return !closed.get() && PlainHttp1.whenReadable(body, ready);
  }

  /**
   * Whether what the body's reader waits for is in Levee's hands, not the upstream's: bytes arrived
   * that Levee has not read, or its reader is not waiting on the upstream. A {@link Watchdog}
   * limit does not fire meanwhile: the upstream was not late. Only a plain {@code http:}
   * upstream's body can tell; any other says false. Never blocks.
   */
  public boolean arrivedUnread() {
    return !closed.get() && PlainHttp1.arrivedUnread(body);
  }

  /**
   * Reads the whole body.
   *
   * @param limit the most bytes accepted
   * @throws IOException when the body is longer than {@code limit} or reading fails
   */
  public byte[] readBody(int limit) throws IOException {
    long length = contentLength();
    if (length >= 0 && length <= limit) { // sized from the header: one array of the body's size
      byte[] bytes = new byte[(int) length];
      int n = body.readNBytes(bytes, 0, bytes.length);
      if (n < bytes.length) {
        throw new IOException("upstream body ended after " + n + " of " + length + " bytes");
      }
      return bytes;
    }
    byte[] bytes = body.readNBytes(limit + 1);
    if (bytes.length > limit) {
      throw new IOException("upstream body exceeds " + limit + " bytes");
    }
    return bytes;
  }

  /** The {@code content-length} announced, or -1 (none, or not a number: read to the limit then). */
  private long contentLength() {
    String value = header("content-length");
    if (value == null) {
      return -1;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Closes the body (aborting the connection if unread) and unregisters from cancellation. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        body.close();
      } catch (IOException ignored) {
        // the connection is being torn down anyway
      }
      try {
        registration.close();
      } catch (Exception ignored) {
        // unregistering cannot meaningfully fail
      }
    }
  }
}
