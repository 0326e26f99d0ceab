package dev.levee.anthropic.server;

import java.time.Duration;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.VirtualThreadPool;

/**
 * A Jetty 12 server whose blocking handlers run on virtual threads (Jetty's recommended setup),
 * listening on one HTTP/1.1 connector, answering Jetty's own errors in the API's shape ({@link
 * ApiErrorHandler}). Shared by the gateway and the emulator.
 */
public final class VirtualThreadServer {

  private VirtualThreadServer() {}

  /**
   * Creates (does not start) a server.
   *
   * @param host the address to bind, e.g. {@code 127.0.0.1}
   * @param port the port, or 0 for any free port
   * @param idleTimeout how long an idle kept-alive connection stays open
   * @param name a prefix for thread names
   */
  public static Server create(String host, int port, Duration idleTimeout, String name, Handler handler) {
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setName(name);
    VirtualThreadPool virtual = new VirtualThreadPool();
    virtual.setName(name + "-vt");
    threads.setVirtualThreadsExecutor(virtual);
    Server server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendDateHeader(true);
    ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
    connector.setHost(host);
    connector.setPort(port);
    connector.setIdleTimeout(idleTimeout.toMillis());
    server.addConnector(connector);
    server.setHandler(handler);
    server.setErrorHandler(new ApiErrorHandler());
    server.setStopTimeout(2000);
    return server;
  }

  /** The port a started server listens on. */
  public static int port(Server server) {
    return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
  }
}
