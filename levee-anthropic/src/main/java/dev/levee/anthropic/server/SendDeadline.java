package dev.levee.anthropic.server;

import dev.levee.core.time.Spans;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The send timeout ({@link ServerLimits#sendTimeout()}, nginx's {@code send_timeout}): a
 * connection whose write to the client has been pending for the timeout with no byte of it taken
 * by the client is closed. The write fails, and with it the exchange, as when the client goes away:
 * a stream's relay ends and closes its upstream call, the request's failure listeners fire. The
 * connection is marked first, and closed with a {@link SendTimeoutException}: a handler tells the
 * cut from a client that left ({@link SendTimeoutException#endedBySendTimeout}).
 *
 * <p>A write is pending when the socket's send buffer is full: the client has stopped reading, or
 * reads slower than the answer comes. Progress is a byte of a write taken by the socket, and only
 * that ({@link WriteTimedEndPoint#lastWrite()}): Jetty's connection idle clock ({@code
 * getIdleFor()}) restarts on every read too, and a client that never read but sent an empty line
 * every few hundred milliseconds (which {@link DisconnectWatch} reads and tolerates) was never cut.
 * So a connection is cut when a write has been pending at every sweep for the timeout <em>and</em>
 * the socket took no byte of a write for as long. Only connections of a {@link
 * WriteTimedConnector} are watched. A handler that writes nothing (a stream waiting minutes for its upstream's
 * first token) has no write pending, and is left to the connection's idle timeout, as before.
 *
 * <p>A slow reader keeps its writes moving, however little it reads: the operating system wakes a
 * blocked writer only once a good part of its send buffer has drained (a third, on Linux, where the
 * buffer grows to 4 MiB), so a client reading a few KiB a second would wait longer than the timeout
 * for that wake-up: judged by the wake-up alone, it would be cut though it reads. So a write that
 * has taken nothing for the timeout less one sweep is offered to the socket once more ({@link
 * org.eclipse.jetty.io.WriteFlusher#completeWrite()}, on Jetty's executor, as its selector would): whatever the client
 * read has made room, the socket takes it, and that is progress. A connection is cut only once
 * such an offer, made at an earlier sweep, found no room ({@link #step}). Offers are made only near
 * the timeout, not at every sweep: a thousand stalled clients cost a thousand tasks per timeout, not
 * per sweep.
 *
 * <p>Why not Jetty's own mechanisms: its connection idle timeout does fail a pending write, but it
 * is one timeout for everything (a kept-alive connection between requests, a handler waiting on
 * its upstream) and has to stay long (300 s); {@code HttpConfiguration.setMinResponseDataRate} is
 * enforced nowhere in Jetty 12's core server; and {@code MinimumDataRateHandler} checks an average
 * rate since the first write, and only as the next write begins — it cuts a stream whose upstream
 * was slow to answer and never a write that stays blocked.
 *
 * <p>A cut connection is reset (SO_LINGER 0, as nginx's {@code reset_timedout_connection}): the
 * MiBs still in its send buffer are dropped, not left to linger in FIN_WAIT1 for a client that
 * does not read them.
 *
 * <p>Applied at each sweep of the server's {@link ConnectionSweeper} (every quarter of the timeout
 * or more often, at most every second), as {@link HeaderDeadline} is: on the write path, one clock
 * read per write that took bytes ({@link WriteTimedEndPoint}). A write is timed from the first
 * sweep that saw it pending, so a cut comes between the timeout and the timeout plus two sweeps
 * after the write stalled. A connection the sweep fails on (a bug) is skipped and keeps its clock;
 * the sweeper logs the failure at WARN, at most once a minute.
 */
final class SendDeadline implements ConnectionSweeper.Check {

  private static final Logger LOG = LoggerFactory.getLogger(SendDeadline.class);

  /** What a sweep does with a connection whose write is pending. */
  enum Step {
    /** Nothing yet: the write is young, or its socket took bytes lately. */
    WAIT,
    /** Offer the write to the socket again: it took nothing for nearly the timeout. */
    OFFER,
    /** Close the connection: pending and taking nothing for the timeout, and an earlier offer found no room. */
    CUT
  }

  /** An {@code offeredAt} of a write never offered again. */
  static final long NEVER = Long.MIN_VALUE;

  private final Executor executor;
  private final Duration timeout;
  private final long timeoutNanos;
  private final long periodNanos;
  private Map<EndPoint, Pending> pending = Map.of(); // writes pending at the last whole sweep; the sweeping thread's own
  private Map<EndPoint, Pending> pendingNow = Map.of(); // at the sweep under way; the sweeping thread's own
  private long now; // the sweep under way's time
  private int cut; // at the sweep under way

  /** A write pending at a sweep: since when (the first sweep that saw it), and when a sweep last offered it again ({@link #NEVER}). */
  private record Pending(long since, long offeredAt) {}

  /**
   * @param executor where an offer runs (the connector's, as its selector's tasks)
   * @param timeout at least 1 s ({@link ServerLimits#MIN_SEND_TIMEOUT})
   * @param period the time between sweeps ({@link ConnectionSweeper#period}); the sweeper's clock
   *     must be the one the connector's {@link WriteTimedEndPoint}s read
   */
  SendDeadline(Executor executor, Duration timeout, Duration period) {
    this.executor = executor;
    this.timeout = timeout;
    this.timeoutNanos = timeout.toNanos();
    this.periodNanos = period.toNanos();
  }

  /**
   * The decision for one connection whose write is pending at a sweep; all times in nanoseconds of
   * one monotonic clock. Pure.
   *
   * @param now the sweep's time
   * @param pendingSince the first sweep that saw this write pending (at most {@code now})
   * @param lastWrite when the socket last took a byte of a write
   * @param offeredAt when a sweep last offered the write again, or {@link #NEVER}
   * @param timeout the send timeout
   * @param period the time between sweeps
   */
  static Step step(long now, long pendingSince, long lastWrite, long offeredAt, long timeout, long period) {
    long quiet = now - lastWrite;
    boolean offeredInVain = offeredAt != NEVER && offeredAt - lastWrite > 0; // offered since the last progress
    if (now - pendingSince >= timeout && quiet >= timeout && offeredInVain) {
      return Step.CUT;
    }
    if (quiet >= timeout - period) { // a cut needs the timeout anyway: no offer before
      return Step.OFFER;
    }
    return Step.WAIT;
  }

  @Override
  public void begin(long now) {
    this.now = now;
    pendingNow = new HashMap<>();
    cut = 0;
  }

  @Override
  public void check(EndPoint endPoint) {
    if (!(endPoint instanceof WriteTimedEndPoint socket) || !endPoint.isOpen()
        || !socket.getWriteFlusher().isPending()) {
      return;
    }
    Pending write = pending.getOrDefault(endPoint, new Pending(now, NEVER));
    pendingNow.put(endPoint, write); // should what follows fail, its clock goes on
    switch (step(now, write.since(), socket.lastWrite(), write.offeredAt(), timeoutNanos, periodNanos)) {
      case WAIT -> {}
      case OFFER -> { // whatever the client read has made room
        executor.execute(socket.getWriteFlusher()::completeWrite);
        pendingNow.put(endPoint, new Pending(write.since(), now));
      }
      case CUT -> {
        cut++;
        if (endPoint.getConnection() instanceof HttpConnection http) { // before the close: its handler asks then
          http.setAttribute(SendTimeoutException.ATTRIBUTE, Boolean.TRUE);
        }
        reset(socket);
        endPoint.close(new SendTimeoutException(timeout));
        pendingNow.remove(endPoint);
      }
    }
  }

  @Override
  public void end() {
    pending = pendingNow;
    if (cut > 0) {
      LOG.info("{} took no byte of a pending answer for {} (server send-timeout): closed",
          cut == 1 ? "1 connection" : cut + " connections", Spans.of(timeout));
    }
  }

  /** Sets SO_LINGER 0 on a connection about to be closed: its close resets it, unsent bytes dropped. */
  private static void reset(WriteTimedEndPoint socket) {
    try {
      socket.getChannel().setOption(StandardSocketOptions.SO_LINGER, 0);
    } catch (IOException | RuntimeException e) {
      // closing already, or closed: the close goes on as usual
    }
  }
}
