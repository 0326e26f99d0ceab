package dev.levee.anthropic.upstream;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpHeaders;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A response whose headers have arrived and whose body is still streaming. Close it on every
 * exit path: closing before the end aborts the connection rather than returning it to the pool.
 */
public final class UpstreamResponse implements AutoCloseable {

  private final int status;
  private final HttpHeaders headers;
  private final InputStream body;
  private final AutoCloseable registration;
  private final AtomicBoolean closed = new AtomicBoolean();

  UpstreamResponse(int status, HttpHeaders headers, InputStream body, Cancellation cancellation) {
    this.status = status;
    this.headers = headers;
    this.body = body;
    this.registration = cancellation.register(this::close);
  }

  public int status() {
    return status;
  }

  /** A header's first value by name (any case), or null. */
  public String header(String name) {
    return headers.firstValue(name).orElse(null);
  }

  /** All headers (lower-case names as HTTP/2 and the JDK client give them). */
  public Map<String, List<String>> headers() {
    return headers.map();
  }

  /** The body stream; reads throw {@link IOException} once the call is cancelled or times out. */
  public InputStream body() {
    return body;
  }

  /**
   * Reads the whole body.
   *
   * @param limit the most bytes accepted
   * @throws IOException when the body is longer than {@code limit} or reading fails
   */
  public byte[] readBody(int limit) throws IOException {
    long length = headers.firstValueAsLong("content-length").orElse(-1);
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
