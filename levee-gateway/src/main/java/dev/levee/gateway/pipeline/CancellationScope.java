package dev.levee.gateway.pipeline;

import dev.levee.anthropic.server.DisconnectWatch;
import dev.levee.anthropic.upstream.Cancellation;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.eclipse.jetty.server.Request;

/**
 * While open, a client that goes away cancels everything done for its request: every upstream
 * call registered with {@link #cancellation()} is closed at once, and the request's thread is
 * interrupted so that a backoff wait — in the first attempts or in a stream's recovery — ends at
 * once instead of sleeping on. Open it around execute <em>and</em> relay; close it before the
 * answer's last byte goes out (the disconnect watch must not read the next request of a
 * kept-alive connection).
 *
 * <p>The connection is watched ({@link DisconnectWatch}) only once the request has run {@link
 * LateWatches#WATCH_AFTER} (at the latest {@link LateWatches#SWEEP_EVERY} later): most answers come
 * sooner, and watching costs a read interest on the connection and a selector wake-up. A client that left before then is noticed as the watch
 * starts (its connection reads as ended). A failure Jetty reports itself (an HTTP/2 reset)
 * cancels at once.
 *
 * <p>Closing clears an interrupt meant for the chain, so it never leaks into the response.
 */
final class CancellationScope implements AutoCloseable, LateWatches.Waiting {

  private static final VarHandle THREAD;

  static {
    try {
      THREAD = MethodHandles.lookup().findVarHandle(CancellationScope.class, "thread", Thread.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Cancellation cancellation = new Cancellation();
  private final Request request;
  private final AutoCloseable wake; // interrupts the thread the request runs on
  // the thread the request runs on now; null while a stream waits with no thread: an ended thread
  // still holds its task (the request's stages and all they captured), so it is not kept (issue 11)
  private volatile Thread thread;
  private final long openedAt;
  private DisconnectWatch watch; // guarded by this: null until the request has run WATCH_AFTER
  private volatile boolean closed; // written under this

  private CancellationScope(Request request, LateWatches watches) {
    this.request = request;
    request.addFailureListener(failure -> cancellation.cancel());
    this.thread = Thread.currentThread();
    this.wake = cancellation.register(this::interruptThread);
    this.openedAt = watches.now();
    watches.add(this);
  }

  /**
   * Opens a scope for {@code request}, on the thread that handles it (the one to interrupt).
   *
   * @param watches where its disconnect watch is started once it has run a while
   */
  static CancellationScope open(Request request, LateWatches watches) {
    return new CancellationScope(request, watches);
  }

  /**
   * The request goes on on the calling thread (a stream relayed on a thread of its own): a client
   * leaving interrupts this thread from now on, not the one that opened the scope.
   */
  void interruptCurrentThread() {
    thread = Thread.currentThread();
    if (cancellation.isCancelled()) { // the client left before: as a wake registered now would, at once
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The calling thread ends while the request goes on later, on another ({@link
   * #interruptCurrentThread}): a client leaving meanwhile interrupts no thread (it closes the
   * upstream, which ends the wait), and the scope keeps no reference to the ended thread. Nothing
   * when another thread already went on.
   */
  void letGoOfCurrentThread() {
    THREAD.compareAndSet(this, Thread.currentThread(), null);
  }

  private void interruptThread() {
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }

  Cancellation cancellation() {
    return cancellation;
  }

  @Override
  public long openedAt() {
    return openedAt;
  }

  @Override
  public boolean closed() {
    return closed;
  }

  /** Starts watching the connection (on the timer's thread), unless the scope has closed. */
  @Override
  public synchronized void watch() {
    if (!closed) {
      watch = DisconnectWatch.start(request, cancellation::cancel);
    }
  }

  @Override
  public void close() {
    closeWake();
    thread = null;
    synchronized (this) {
      closed = true;
      if (watch != null) {
        watch.close();
      }
    }
    Thread.interrupted(); // an interrupt meant for the chain or the recovery must not leak into the response
  }

  private void closeWake() {
    try {
      wake.close();
    } catch (Exception ignored) {
      // unregistering cannot fail
    }
  }
}
