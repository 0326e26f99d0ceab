package dev.levee.anthropic.server;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.VirtualThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Jetty 12 server whose blocking handlers run on virtual threads (Jetty's recommended setup),
 * listening on one HTTP/1.1 connector, answering Jetty's own errors in the API's shape ({@link
 * ApiErrorHandler}), with {@link ServerLimits}: connections and virtual threads sized for
 * thousands of long streams, a header-read deadline ({@link HeaderDeadline}) and a send timeout
 * for clients that stop reading ({@link SendDeadline}) on one sweeping thread ({@link
 * ConnectionSweeper}), and a {@link
 * RequestGuard} in front of the handler (control lane, admission, body rate, graceful
 * shutdown). Shared by the gateway and the emulator.
 */
public final class VirtualThreadServer {

  private static final Logger LOG = LoggerFactory.getLogger(VirtualThreadServer.class);

  /**
   * Bytes of released network buffers kept for reuse, direct and heap each (Jetty's default keeps
   * an eighth of the maximum heap of each: 32 MiB of direct memory at {@code -Xmx256m}, filled
   * by the request buffers of a burst of new connections and then held for good).
   */
  static final long POOLED_BUFFER_BYTES = 4L << 20;

  /**
   * Bytes of a connection's request buffer (Jetty's default 8 KiB). Jetty holds it, direct, while
   * the handler runs — a stream's whole life — since the handler runs inside the connection's read
   * loop: 10,000 streams held 80 MiB of them. 2 KiB holds the headers of a typical API request;
   * longer headers and bodies are parsed across several reads (headers stay limited by {@link
   * HttpConfiguration#getRequestHeaderSize()}, 8 KiB).
   */
  static final int REQUEST_BUFFER_BYTES = 2048;

  /** The pool's size steps: 1 KiB, so a 2 KiB request buffer is not rounded up to Jetty's default 4 KiB step. */
  private static final int POOL_STEP = 1024;

  /**
   * Platform threads at most: Jetty's acceptor and selectors and the short non-blocking tasks they
   * hand off (handlers run on virtual threads). Jetty's default cap of 200 let a burst of 10,000
   * connects start ~140 threads that then idled for a minute, ~100 KiB of stack each.
   */
  static int platformThreads() {
    return 8 + 2 * Runtime.getRuntime().availableProcessors();
  }

  private VirtualThreadServer() {}

  /** Creates (does not start) a server with {@link ServerLimits#DEFAULT} and no control lane. */
  public static Server create(String host, int port, Duration idleTimeout, String name, Handler handler) {
    return create(host, port, idleTimeout, name, handler, ServerLimits.DEFAULT, RequestGuard.Lanes.NONE);
  }

  /**
   * Creates (does not start) a server.
   *
   * @param host the address to bind, e.g. {@code 127.0.0.1}
   * @param port the port, or 0 for any free port
   * @param idleTimeout how long an idle kept-alive connection stays open
   * @param name a prefix for thread names
   * @param limits connection, request and shutdown limits
   * @param lanes the paths of the control lane (never limited) and the readiness path
   */
  public static Server create(String host, int port, Duration idleTimeout, String name, Handler handler,
      ServerLimits limits, RequestGuard.Lanes lanes) {
    QueuedThreadPool threads = new QueuedThreadPool(platformThreads(), Math.min(4, platformThreads()));
    threads.setName(name);
    VirtualThreadPool virtual = new VirtualThreadPool(limits.maxConnections() + ServerLimits.THREAD_RESERVE);
    virtual.setName(name + "-vt");
    threads.setVirtualThreadsExecutor(virtual);
    Server server = new Server(threads, null,
        new ArrayByteBufferPool(0, POOL_STEP, 64 * POOL_STEP, Integer.MAX_VALUE, POOLED_BUFFER_BYTES, POOLED_BUFFER_BYTES));
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendDateHeader(true);
    http.addCustomizer(new OverloadedReason()); // "529 Overloaded", not "529 529"
    SilentConnections http1 = new SilentConnections(http);
    http1.setInputBufferSize(REQUEST_BUFFER_BYTES);
    LongSupplier clock = NanoTime::now; // Jetty's: its parsers' begin times, the endpoints' writes and the sweeps read it
    ServerConnector connector = new WriteTimedConnector(server, clock, http1);
    connector.setHost(host);
    connector.setPort(port);
    connector.setIdleTimeout(idleTimeout.toMillis());
    connector.setAcceptQueueSize(limits.acceptQueue());
    server.addConnector(connector);
    server.addBean(new NetworkConnectionLimit(limits.maxConnections(), connector));
    Duration sweep = ConnectionSweeper.period(limits.headerTimeout(), limits.sendTimeout());
    server.addBean(new ConnectionSweeper(name + "-sweeper", connector, clock, sweep,
        new HeaderDeadline(limits.headerTimeout(), lanes, http1::closedOne),
        new SendDeadline(connector.getExecutor(), limits.sendTimeout(), sweep)));
    server.setHandler(new RequestGuard(limits, lanes, handler));
    server.setErrorHandler(new ApiErrorHandler(lanes, http.getRequestHeaderSize()));
    server.setStopTimeout(2000);
    return server;
  }

  /** The port a started server listens on. */
  public static int port(Server server) {
    return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
  }

  /**
   * How many connections a server made by {@link #create} has closed having received nothing on
   * them — not a byte, so no request to answer — at its idle timeout or its header deadline; closed
   * without a word, never answered 408. Each counted once.
   */
  public static long silentConnectionsClosed(Server server) {
    return server.getConnectors()[0].getConnectionFactory(SilentConnections.class).closed();
  }

  /** The guard in front of a server's handler. */
  public static RequestGuard guard(Server server) {
    return (RequestGuard) server.getHandler();
  }

  /**
   * Stops a server gracefully: stops accepting connections, reports not-ready, lets requests in
   * flight finish within {@link ServerLimits#shutdownGrace()}, ends the rest ({@link
   * RequestGuard#drain}), then stops. Returns when the server has stopped.
   */
  public static void shutdown(Server server) throws Exception {
    for (var connector : server.getConnectors()) {
      if (connector instanceof ServerConnector network) {
        network.close(); // stop accepting; open connections stay
      }
    }
    try {
      guard(server).drain();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      server.stop();
    } catch (TimeoutException e) {
      LOG.info("connections still open after the stop timeout were closed");
    }
  }
}
