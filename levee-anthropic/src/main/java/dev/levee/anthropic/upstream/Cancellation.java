package dev.levee.anthropic.upstream;

import java.util.ArrayList;
import java.util.List;

/**
 * The cancel switch of one client request: once the client goes away (or the request is
 * otherwise abandoned), every upstream call registered here is torn down at once.
 *
 * <p>Thread-safe: {@link #cancel()} is typically called from a server thread that noticed the
 * disconnect, while the request's own thread is blocked reading from the upstream.
 */
public final class Cancellation {

  private final List<AutoCloseable> resources = new ArrayList<>();
  private boolean cancelled;

  /** Whether {@link #cancel()} has been called. */
  public synchronized boolean isCancelled() {
    return cancelled;
  }

  /**
   * Registers something to close on cancel; closes it at once if already cancelled.
   *
   * @return a handle that unregisters it (close it when the call ends normally)
   */
  public AutoCloseable register(AutoCloseable resource) {
    boolean closeNow;
    synchronized (this) {
      closeNow = cancelled;
      if (!closeNow) {
        resources.add(resource);
      }
    }
    if (closeNow) {
      closeQuietly(resource);
    }
    return () -> {
      synchronized (this) {
        resources.remove(resource);
      }
    };
  }

  /** Cancels: closes every registered resource. Idempotent. */
  public void cancel() {
    List<AutoCloseable> toClose;
    synchronized (this) {
      if (cancelled) {
        return;
      }
      cancelled = true;
      toClose = List.copyOf(resources);
      resources.clear();
    }
    toClose.forEach(Cancellation::closeQuietly);
  }

  private static void closeQuietly(AutoCloseable resource) {
    try {
      resource.close();
    } catch (Exception ignored) {
      // tearing down; nothing useful to do with a failure to close
    }
  }
}
