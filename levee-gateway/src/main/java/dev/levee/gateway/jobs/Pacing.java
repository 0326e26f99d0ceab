package dev.levee.gateway.jobs;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * How many queued jobs may start now, so that a draining batch never slows interactive requests
 * (on by default; {@code queue.pacing}). The gateway reports each interactive request's start and
 * end ({@link #enter}, {@link #exit}); the dispatcher asks {@link #decide} before it claims:
 *
 * <ol>
 *   <li>within {@code yield-for} (default 5 ms) of an interactive request starting or ending, no
 *       job starts: a request's CPU-heavy moments are its start (reading, routing) and its end
 *       (answering), so the workers step aside exactly then; jobs already running finish;
 *   <li>while an interactive request is in flight, or one was seen within {@code shared-for}
 *       (default 1 s), at most {@code shared-workers} jobs (default 1) run at once;
 *   <li>otherwise — no interactive traffic — all {@code queue.workers} run.
 * </ol>
 *
 * <p>Queued work never starves: when no job has started for {@code shared-for} and none is running,
 * one may start even inside rule 1. Thread-safe; the clock is injected (nanoseconds, monotonic).
 */
public final class Pacing implements InteractiveTraffic {

  /**
   * What the dispatcher may do now.
   *
   * @param startable how many more jobs may start now (0: hold back)
   * @param recheckNanos when the answer may change by time alone, in nanoseconds from now; {@code
   *     -1} when only an event changes it (a job ends, work is added, the last interactive request ends)
   */
  public record Decision(int startable, long recheckNanos) {}

  private final boolean enabled;
  private final long yieldFor;
  private final long sharedFor;
  private final int sharedWorkers;
  private final int workers;
  private final LongSupplier nanos;
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile long lastSeen;
  private volatile boolean seen;
  private volatile long lastStart;
  private volatile Runnable onQuiet = () -> {};

  /**
   * @param config the {@code queue.pacing} settings
   * @param workers the most jobs at once without interactive traffic ({@code queue.workers})
   * @param nanos a monotonic clock in nanoseconds ({@code System::nanoTime})
   */
  public Pacing(PacingConfig config, int workers, LongSupplier nanos) {
    this.enabled = config.enabled();
    this.yieldFor = config.yieldFor().toNanos();
    this.sharedFor = config.sharedFor().toNanos();
    this.sharedWorkers = Math.min(workers, config.sharedWorkers());
    this.workers = workers;
    this.nanos = nanos;
    this.lastStart = nanos.getAsLong();
  }

  /** Called when the last interactive request in flight ends (the dispatcher may be holding back). */
  void onQuiet(Runnable listener) {
    this.onQuiet = listener;
  }

  @Override
  public void enter() {
    inFlight.incrementAndGet();
    lastSeen = nanos.getAsLong();
    seen = true;
  }

  @Override
  public void exit() {
    lastSeen = nanos.getAsLong();
    if (inFlight.decrementAndGet() == 0) {
      onQuiet.run();
    }
  }

  /** Interactive requests in flight now. */
  public int inFlight() {
    return inFlight.get();
  }

  /** Records that {@code n} jobs were started now (the anti-starvation rule counts from the last start). */
  void started(int n) {
    if (n > 0) {
      lastStart = nanos.getAsLong();
    }
  }

  /** How many more jobs may start now while {@code running} run. */
  public Decision decide(int running) {
    int all = Math.max(0, workers - running);
    if (!enabled) {
      return new Decision(all, -1);
    }
    long now = nanos.getAsLong();
    long since = now - lastSeen;
    boolean busy = inFlight.get() > 0;
    if (!busy && (!seen || since >= sharedFor)) {
      return new Decision(all, -1); // no interactive traffic: full speed
    }
    int shared = Math.max(0, sharedWorkers - running);
    if (since < yieldFor) { // a request just started or ended: step aside
      long left = yieldFor - since;
      long starving = now - lastStart;
      if (running > 0 || starving < sharedFor) {
        return new Decision(0, running > 0 ? left : Math.min(left, sharedFor - starving));
      }
      return new Decision(Math.min(1, shared), left); // nothing started for shared-for: one may
    }
    return new Decision(shared, busy ? -1 : sharedFor - since);
  }
}
