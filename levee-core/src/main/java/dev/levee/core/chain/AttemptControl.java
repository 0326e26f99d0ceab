package dev.levee.core.chain;

import java.util.ArrayList;
import java.util.List;

/**
 * The link between a {@link FallbackChain} and one running {@link Attempt}, for hedged requests:
 * the attempt tells the chain when its answer has begun ({@link #firstByte()}: the response head
 * of a JSON call, the first content delta of a stream), and the chain tells the attempt to stop
 * at once ({@link #onAbort}: its twin answered first, so its upstream connection is to be closed).
 *
 * <p>Calls that are not part of a hedged pair get {@link #NONE}, which ignores both. Thread-safe:
 * the abort comes from another thread than the one running the attempt.
 */
public final class AttemptControl {

  /** The control of a call that is not hedged: first bytes are ignored and it is never aborted. */
  public static final AttemptControl NONE = new AttemptControl(() -> { }, false);

  private final Runnable onFirstByte;
  private final boolean abortable;
  private final List<Runnable> onAbort = new ArrayList<>();
  private boolean firstByte;
  private boolean aborted;

  AttemptControl(Runnable onFirstByte) {
    this(onFirstByte, true);
  }

  private AttemptControl(Runnable onFirstByte, boolean abortable) {
    this.onFirstByte = onFirstByte;
    this.abortable = abortable;
  }

  /**
   * The answer has begun: a JSON call's response head arrived, or a stream's first content delta.
   * Only the first report counts.
   */
  public void firstByte() {
    synchronized (this) {
      if (firstByte || !abortable) {
        return;
      }
      firstByte = true;
    }
    onFirstByte.run();
  }

  /** Whether the chain may abort this call (it is one of a hedged pair). */
  public boolean abortable() {
    return abortable;
  }

  /**
   * Registers what stops the call (closing its upstream connection); runs it at once when the call
   * was already aborted.
   *
   * @return a handle that unregisters {@code action}
   */
  public AutoCloseable onAbort(Runnable action) {
    if (!abortable) {
      return () -> { };
    }
    boolean now;
    synchronized (this) {
      now = aborted;
      if (!now) {
        onAbort.add(action);
      }
    }
    if (now) {
      action.run();
    }
    return () -> {
      synchronized (this) {
        onAbort.remove(action);
      }
    };
  }

  /** Whether the chain aborted this call. */
  public synchronized boolean aborted() {
    return aborted;
  }

  /** Aborts the call: runs every registered action once. Idempotent. */
  void abort() {
    List<Runnable> actions;
    synchronized (this) {
      if (aborted || !abortable) {
        return;
      }
      aborted = true;
      actions = List.copyOf(onAbort);
      onAbort.clear();
    }
    actions.forEach(Runnable::run);
  }
}
