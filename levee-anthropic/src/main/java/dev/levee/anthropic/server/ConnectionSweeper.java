package dev.levee.anthropic.server;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's one sweeping thread: every {@link #period} it walks the connector's open connections
 * once and applies each {@link Check} to each — the header deadline ({@link HeaderDeadline}) and
 * the send timeout ({@link SendDeadline}). Started and stopped with the server, as one of its beans.
 *
 * <p>A check that fails on a connection (a bug) skips that connection for this sweep, keeping what
 * it recorded of it before judging it (the send timeout, its clock; the header deadline, its age);
 * the failure is logged at WARN, at most once a minute. A walk that fails as a whole ends no check's sweep: each keeps
 * what it knew from the last whole one, and the next sweep tries again.
 */
final class ConnectionSweeper extends AbstractLifeCycle {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectionSweeper.class);

  /** The least time between two WARN lines of failed sweeps. */
  private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

  /** What a sweep does with each open connection. Called on the sweeping thread only: its state needs no lock. */
  interface Check {
    /** Begins a sweep at {@code now}, in nanoseconds of the sweeper's monotonic clock. */
    void begin(long now);

    /** Checks one open connection. */
    void check(EndPoint endPoint);

    /** Ends a sweep that reached every connection: a connection it did not check is forgotten. */
    void end();
  }

  private final String name;
  private final Connector connector;
  private final LongSupplier nanos;
  private final Duration period;
  private final List<Check> checks;
  private ScheduledExecutorService thread;
  private long warnedAt; // the sweeping thread's own
  private boolean warned; // the sweeping thread's own

  /**
   * @param name the thread's name
   * @param nanos the monotonic clock, in nanoseconds, the checks judge by (Jetty's {@link
   *     org.eclipse.jetty.util.NanoTime#now()}, which its parsers' begin times are read on, but in tests)
   * @param period the time between sweeps ({@link #period(Duration...)})
   */
  ConnectionSweeper(String name, Connector connector, LongSupplier nanos, Duration period, Check... checks) {
    this.name = name;
    this.connector = connector;
    this.nanos = nanos;
    this.period = period;
    this.checks = List.of(checks);
  }

  /**
   * The time between sweeps for checks with these timeouts: a quarter of the shortest, at most a
   * second (and at least 10 ms). Sweeping for the shortest, no check waits longer between sweeps
   * than a quarter of its own timeout.
   */
  static Duration period(Duration... timeouts) {
    long shortest = Long.MAX_VALUE;
    for (Duration timeout : timeouts) {
      shortest = Math.min(shortest, timeout.toMillis());
    }
    return Duration.ofMillis(Math.max(10, Math.min(1000, shortest / 4)));
  }

  @Override
  protected void doStart() {
    thread = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name(name).factory());
    thread.scheduleWithFixedDelay(this::sweepOrWarn, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  protected void doStop() {
    thread.shutdownNow();
  }

  /**
   * {@link #sweep}, never throwing: a scheduled task that throws is cancelled for good, silently,
   * and with it both deadlines (an {@link Error}, or a failure in a check's {@code begin} or {@code
   * end}, which {@link #sweep} does not catch). The failure is logged, and the next sweep runs.
   */
  void sweepOrWarn() {
    try {
      sweep();
    } catch (Throwable e) {
      warn(nanos.getAsLong(), this, e);
    }
  }

  /** One sweep: every check of every open connection. */
  void sweep() {
    long now = nanos.getAsLong();
    for (Check check : checks) {
      check.begin(now);
    }
    try {
      for (EndPoint endPoint : connector.getConnectedEndPoints()) {
        for (Check check : checks) {
          try {
            check.check(endPoint);
          } catch (RuntimeException e) {
            warn(now, check, e);
          }
        }
      }
    } catch (RuntimeException e) {
      warn(now, this, e);
      return; // every check keeps its last whole sweep; the next sweep tries again
    }
    for (Check check : checks) {
      check.end();
    }
  }

  private void warn(long now, Object failed, Throwable e) {
    if (!warned || now - warnedAt >= WARN_EVERY_NANOS) {
      warned = true;
      warnedAt = now;
      LOG.warn("{} failed in a connection sweep (logged at most once a minute)", failed.getClass().getSimpleName(), e);
    }
  }
}
