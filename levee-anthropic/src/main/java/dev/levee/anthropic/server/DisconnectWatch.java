package dev.levee.anthropic.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jetty.io.AbstractEndPoint;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;

/**
 * Notices an HTTP/1.1 client going away while a handler is still working on its request.
 *
 * <p>Once a request's body has been read, Jetty stops reading from the connection until the
 * response is complete, so a client that closes its socket goes unnoticed until a write fails —
 * which, for a handler waiting on a slow upstream, may be never. This watch asks the connection's
 * endpoint to report readability; on HTTP/1.1 a readable connection in the middle of an exchange
 * means end-of-stream or reset (clients do not pipeline POSTs), unless all it reads is empty
 * lines, which old clients send after a POST's body and a server ignores (RFC 9112 section 2.2;
 * {@code BlankLineAfterBodyRegressionTest}): the watch reads them and goes on watching. {@link #close()} withdraws the
 * interest so that Jetty can read the next request of a kept-alive connection.
 *
 * <p><b>Never reads after {@link #close()}.</b> The watch reads from the socket itself, beside
 * Jetty. A read that was decided before {@code close()} but ran after it would take the first
 * bytes of the client's next request on a kept-alive connection (Jetty then answers "400 No URI"
 * or "Illegal character": issue 9 item 10). Such late wake-ups are common: the readability
 * interest the watch registers stays on the selector key after {@code close()}, so the next
 * request's arrival can wake the next exchange's watch on a pool thread that runs later. So
 * the check "still open" and the read happen under one lock that {@code close()} takes too, and
 * a wake-up that finds nothing to read re-arms the watch instead of silently ending it.
 *
 * <p>Start it only after the request body has been read completely. Thread-safe.
 */
public final class DisconnectWatch implements AutoCloseable {

  private final EndPoint endPoint;
  private final Runnable onGone;
  private final ReentrantLock lock = new ReentrantLock();
  private final Callback readable = new Readable();
  private boolean closed; // guarded by lock
  private boolean armed; // guarded by lock: our callback is the endpoint's fill interest
  private volatile boolean gone;

  private DisconnectWatch(EndPoint endPoint, Runnable onGone) {
    this.endPoint = endPoint;
    this.onGone = onGone;
  }

  /**
   * Starts watching the connection of {@code request}; {@code onGone} runs at most once, on a
   * Jetty thread, when the client has gone away.
   */
  public static DisconnectWatch start(Request request, Runnable onGone) {
    EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
    if (!request.getConnectionMetaData().getHttpVersion().is("HTTP/1.1")
        && !request.getConnectionMetaData().getHttpVersion().is("HTTP/1.0")) {
      return new DisconnectWatch(endPoint, onGone); // HTTP/2 reports a reset stream through Jetty's failure listeners
    }
    return start(endPoint, onGone);
  }

  /** Starts watching {@code endPoint} (an HTTP/1 connection whose request body has been read). */
  static DisconnectWatch start(EndPoint endPoint, Runnable onGone) {
    DisconnectWatch watch = new DisconnectWatch(endPoint, onGone);
    watch.lock.lock();
    try {
      watch.arm();
    } finally {
      watch.lock.unlock();
    }
    return watch;
  }

  /** Whether the client has gone away. */
  public boolean clientGone() {
    return gone;
  }

  /** Stops watching; call before completing the response. Idempotent. */
  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      if (armed && endPoint instanceof AbstractEndPoint ep) {
        armed = false;
        // only our own interest can be registered now: the body is read and the response not complete
        ep.getFillInterest().onFail(new ExchangeComplete());
      }
    } finally {
      lock.unlock();
    }
  }

  private void arm() { // with lock held
    armed = endPoint.tryFillInterested(readable);
  }

  private void markGone() {
    if (!gone) {
      gone = true;
      onGone.run();
    }
  }

  /** Whether {@code bytes} (flush mode) hold only CR and LF: empty lines, as old clients send after a POST's body. */
  private static boolean emptyLines(ByteBuffer bytes) {
    for (int i = bytes.position(); i < bytes.limit(); i++) {
      if (bytes.get(i) != '\r' && bytes.get(i) != '\n') {
        return false;
      }
    }
    return true;
  }

  private final class Readable implements Callback {
    @Override
    public void succeeded() {
      boolean left;
      lock.lock();
      try {
        armed = false;
        if (closed) {
          return; // the exchange is over: what is readable now belongs to the next request
        }
        ByteBuffer bytes = BufferUtil.allocate(64);
        int read;
        try {
          read = endPoint.fill(bytes);
        } catch (IOException e) {
          read = -1;
        }
        // -1: end of stream; > 0: bytes a non-pipelining client never sends mid-exchange, but for
        // empty lines, which a server ignores before a request-line (RFC 9112 section 2.2)
        left = read < 0 || read > 0 && !emptyLines(bytes);
        if (!left) {
          arm(); // a wake-up with nothing to read (a late one, or spurious): keep watching
        }
      } finally {
        lock.unlock();
      }
      if (left) {
        markGone();
      }
    }

    @Override
    public void failed(Throwable cause) {
      boolean ours;
      lock.lock();
      try {
        armed = false;
        ours = closed || cause instanceof CancellationException;
      } finally {
        lock.unlock();
      }
      if (!ours) {
        markGone();
      }
    }
  }

  /**
   * Control flow, not an error: ends the watch's read interest once the exchange is complete. One
   * per request, so it carries no stack trace (filling one cost more than the rest of the watch).
   */
  static final class ExchangeComplete extends CancellationException {
    ExchangeComplete() {
      super("exchange complete");
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }
}
