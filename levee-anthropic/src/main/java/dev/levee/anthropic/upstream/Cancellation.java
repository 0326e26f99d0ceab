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
  private String reason;

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

  /**
   * Why it was cancelled: the word given to {@link #cancel(String)} by the first cancel, or null
   * (not cancelled, or cancelled without a word).
   */
  public synchronized String reason() {
    return reason;
  }

  /** Cancels: closes every registered resource. Idempotent. */
  public void cancel() {
    cancel(null);
  }

  /**
   * Cancels, naming why ({@link #reason}; a later cancel does not change it): closes every
   * registered resource. Idempotent.
   *
   * @param why a short word for logs and metrics ({@code cancelled}, {@code lease_lost}), or null
   */
  public void cancel(String why) {
    List<AutoCloseable> toClose;
    synchronized (this) {
      if (cancelled) {
        return;
      }
      cancelled = true;
      reason = why;
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
