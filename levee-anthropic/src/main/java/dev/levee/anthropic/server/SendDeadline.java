package dev.levee.anthropic.server;

import dev.levee.core.time.Spans;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.WriteFlusher;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The send timeout ({@link ServerLimits#sendTimeout()}, nginx's {@code send_timeout}): a
 * connection whose write to the client has been pending for the timeout with no byte of it taken
 * by the client is closed. The write fails, and with it the exchange, as when the client goes away:
 * a stream's relay ends and closes its upstream call, the request's failure listeners fire.
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
 * for that wake-up — and was judged by it alone, be cut though it reads. Each sweep therefore offers
 * a write that took nothing since the last sweep to the socket once more ({@link
 * WriteFlusher#completeWrite()}, on Jetty's executor, as its selector would): whatever the client
 * read has made room, the socket takes it, and that is progress.
 *
 * <p>Why not Jetty's own mechanisms: its connection idle timeout does fail a pending write, but it
 * is one timeout for everything (a kept-alive connection between requests, a handler waiting on
 * its upstream) and has to stay long (300 s); {@code HttpConfiguration.setMinResponseDataRate} is
 * enforced nowhere in Jetty 12's core server; and {@code MinimumDataRateHandler} checks an average
 * rate since the first write, and only as the next write begins — it cuts a stream whose upstream
 * was slow to answer and never a write that stays blocked.
 *
 * <p>One sweep over the connector's connections every quarter of the timeout (at most every
 * second), as {@link HeaderDeadline}: no work at all on the write path. A write is timed from the
 * first sweep that saw it pending, so a cut comes between the timeout and the timeout plus two
 * sweeps after the write stalled.
 */
final class SendDeadline extends AbstractLifeCycle {

  private static final Logger LOG = LoggerFactory.getLogger(SendDeadline.class);

  private final Connector connector;
  private final Duration timeout;
  private final long timeoutNanos;
  private final long periodMillis;
  private final long periodNanos;
  private final LongSupplier nanos;
  private ScheduledExecutorService sweeper;
  private Map<EndPoint, Long> pendingSince = Map.of(); // a write pending at the last sweep: since when; the sweeper's own

  SendDeadline(Connector connector, Duration timeout) {
    this(connector, timeout, NanoTime::now);
  }

  /** @param nanos the monotonic clock, in nanoseconds: Jetty's ({@link NanoTime#now()}) but in tests */
  SendDeadline(Connector connector, Duration timeout, LongSupplier nanos) {
    this.connector = connector;
    this.timeout = timeout;
    this.timeoutNanos = timeout.toNanos();
    this.periodMillis = Math.max(10, Math.min(1000, timeout.toMillis() / 4));
    this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMillis);
    this.nanos = nanos;
  }

  @Override
  protected void doStart() {
    sweeper = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("levee-send-deadline").factory());
    sweeper.scheduleWithFixedDelay(this::sweep, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  @Override
  protected void doStop() {
    sweeper.shutdownNow();
  }

  void sweep() {
    long now = nanos.getAsLong();
    Map<EndPoint, Long> pendingNow = new HashMap<>();
    int cut = 0;
    try {
      for (EndPoint endPoint : connector.getConnectedEndPoints()) {
        if (!(endPoint instanceof WriteTimedEndPoint socket) || !socket.getWriteFlusher().isPending()) {
          continue;
        }
        long since = pendingSince.getOrDefault(endPoint, now);
        long idle = now - socket.lastWrite();
        if (now - since >= timeoutNanos && idle >= timeoutNanos) {
          cut++;
          endPoint.close(new TimeoutException("the client took no byte of the answer for " + Spans.of(timeout)));
          continue;
        }
        pendingNow.put(endPoint, since); // pending, but not for long, or the client took bytes lately
        if (idle >= periodNanos) { // nothing taken since the last sweep: offer it again, whatever the client read has room
          WriteFlusher flusher = socket.getWriteFlusher();
          connector.getExecutor().execute(flusher::completeWrite);
        }
      }
    } catch (RuntimeException e) {
      LOG.debug("send deadline sweep failed", e); // the next sweep tries again
    }
    pendingSince = pendingNow;
    if (cut > 0) {
      LOG.info("{} connections took no byte of a pending answer for {} (server send-timeout): closed", cut,
          Spans.of(timeout));
    }
  }
}
