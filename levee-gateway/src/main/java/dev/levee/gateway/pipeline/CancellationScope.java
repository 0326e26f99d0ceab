package dev.levee.gateway.pipeline;

import dev.levee.anthropic.server.DisconnectWatch;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.Watchdog;
import java.time.Duration;
import org.eclipse.jetty.server.Request;

/**
 * While open, a client that goes away cancels everything done for its request: every upstream
 * call registered with {@link #cancellation()} is closed at once, and the request's thread is
 * interrupted so that a backoff wait — in the first attempts or in a stream's recovery — ends at
 * once instead of sleeping on. Open it around execute <em>and</em> relay; close it before the
 * answer's last byte goes out (the disconnect watch must not read the next request of a
 * kept-alive connection).
 *
 * <p>The connection is watched ({@link DisconnectWatch}) only once the request has taken {@link
 * #WATCH_AFTER}: most answers come sooner, and watching costs a read interest on the connection
 * and a selector wake-up. A client that left before then is noticed as the watch starts (its
 * connection reads as ended). A failure Jetty reports itself (an HTTP/2 reset) cancels at once.
 *
 * <p>Closing clears an interrupt meant for the chain, so it never leaks into the response.
 */
final class CancellationScope implements AutoCloseable {

  /** How long a request runs before its connection is watched for the client leaving. */
  static final Duration WATCH_AFTER = Duration.ofMillis(5);

  private final Cancellation cancellation = new Cancellation();
  private final Request request;
  private final AutoCloseable wake;
  private final Watchdog.Timer watchLater;
  private DisconnectWatch watch; // guarded by this: null until the request has taken WATCH_AFTER
  private boolean closed; // guarded by this

  private CancellationScope(Request request, Watchdog timers) {
    this.request = request;
    request.addFailureListener(failure -> cancellation.cancel());
    Thread self = Thread.currentThread();
    this.wake = cancellation.register(self::interrupt);
    this.watchLater = timers.start(WATCH_AFTER, this::watch);
  }

  /**
   * Opens a scope for {@code request}, on the thread that handles it (the one to interrupt).
   *
   * @param timers the timers that start the disconnect watch after {@link #WATCH_AFTER}
   */
  static CancellationScope open(Request request, Watchdog timers) {
    return new CancellationScope(request, timers);
  }

  Cancellation cancellation() {
    return cancellation;
  }

  /** Starts watching the connection, on the timer's thread, unless the scope has closed. */
  private synchronized void watch() {
    if (!closed) {
      watch = DisconnectWatch.start(request, cancellation::cancel);
    }
  }

  @Override
  public void close() {
    try {
      wake.close();
    } catch (Exception ignored) {
      // unregistering cannot fail
    }
    watchLater.close();
    synchronized (this) {
      closed = true;
      if (watch != null) {
        watch.close();
      }
    }
    Thread.interrupted(); // an interrupt meant for the chain or the recovery must not leak into the response
  }
}
