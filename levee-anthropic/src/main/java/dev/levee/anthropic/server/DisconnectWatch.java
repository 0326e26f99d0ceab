package dev.levee.anthropic.server;

import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * means end-of-stream or reset (clients do not pipeline POSTs). {@link #close()} withdraws the
 * interest so that Jetty can read the next request of a kept-alive connection.
 *
 * <p>Start it only after the request body has been read completely. Thread-safe.
 */
public final class DisconnectWatch implements AutoCloseable {

  private final EndPoint endPoint;
  private final AtomicBoolean gone = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Runnable onGone;

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
    DisconnectWatch watch = new DisconnectWatch(endPoint, onGone);
    if (!request.getConnectionMetaData().getHttpVersion().is("HTTP/1.1")
        && !request.getConnectionMetaData().getHttpVersion().is("HTTP/1.0")) {
      return watch; // HTTP/2 reports a reset stream through Jetty's own failure listeners
    }
    endPoint.tryFillInterested(new Callback() {
      @Override
      public void succeeded() {
        if (watch.closed.get()) {
          return;
        }
        try {
          int read = endPoint.fill(BufferUtil.allocate(64));
          if (read != 0) {
            watch.markGone(); // -1: end of stream; > 0: bytes a non-pipelining client never sends
          }
        } catch (IOException e) {
          watch.markGone();
        }
      }

      @Override
      public void failed(Throwable cause) {
        if (!(cause instanceof CancellationException)) {
          watch.markGone();
        }
      }
    });
    return watch;
  }

  /** Whether the client has gone away. */
  public boolean clientGone() {
    return gone.get();
  }

  private void markGone() {
    if (gone.compareAndSet(false, true)) {
      onGone.run();
    }
  }

  /** Stops watching; call before completing the response. Idempotent. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true) && !gone.get() && endPoint instanceof AbstractEndPoint ep) {
      ep.getFillInterest().onFail(new CancellationException("exchange complete"));
    }
  }
}
