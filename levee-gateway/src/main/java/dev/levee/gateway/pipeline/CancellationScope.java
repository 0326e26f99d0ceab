package dev.levee.gateway.pipeline;

import dev.levee.anthropic.server.DisconnectWatch;
import dev.levee.anthropic.upstream.Cancellation;
import org.eclipse.jetty.server.Request;

/**
 * While open, a client that goes away cancels everything done for its request: every upstream
 * call registered with {@link #cancellation()} is closed at once, and the request's thread is
 * interrupted so that a backoff wait — in the first attempts or in a stream's recovery — ends at
 * once instead of sleeping on. Open it around execute <em>and</em> relay; close it before the
 * answer's last byte goes out (the disconnect watch must not read the next request of a
 * kept-alive connection).
 *
 * <p>Closing clears an interrupt meant for the chain, so it never leaks into the response.
 */
final class CancellationScope implements AutoCloseable {

  private final Cancellation cancellation = new Cancellation();
  private final DisconnectWatch watch;
  private final AutoCloseable wake;

  private CancellationScope(Request request) {
    this.watch = DisconnectWatch.start(request, cancellation::cancel);
    request.addFailureListener(failure -> cancellation.cancel());
    Thread self = Thread.currentThread();
    this.wake = cancellation.register(self::interrupt);
  }

  /** Opens a scope for {@code request}, on the thread that handles it (the one to interrupt). */
  static CancellationScope open(Request request) {
    return new CancellationScope(request);
  }

  Cancellation cancellation() {
    return cancellation;
  }

  @Override
  public void close() {
    try {
      wake.close();
    } catch (Exception ignored) {
      // unregistering cannot fail
    }
    watch.close();
    Thread.interrupted(); // an interrupt meant for the chain or the recovery must not leak into the response
  }
}
