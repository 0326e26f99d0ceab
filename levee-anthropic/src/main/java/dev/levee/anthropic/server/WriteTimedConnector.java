package dev.levee.anthropic.server;

import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.function.LongSupplier;
import org.eclipse.jetty.io.ManagedSelector;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** A server connector whose connections are {@link WriteTimedEndPoint}s, as {@link SendDeadline} needs. */
final class WriteTimedConnector extends ServerConnector {

  private final LongSupplier nanos;

  /** @param nanos the monotonic clock, in nanoseconds, the endpoints time their writes on */
  WriteTimedConnector(Server server, LongSupplier nanos, ConnectionFactory... factories) {
    super(server, factories);
    this.nanos = nanos;
  }

  @Override
  protected SocketChannelEndPoint newEndPoint(SocketChannel channel, ManagedSelector selector, SelectionKey key) {
    WriteTimedEndPoint endPoint = new WriteTimedEndPoint(channel, selector, key, getScheduler(), nanos);
    endPoint.setIdleTimeout(getIdleTimeout()); // as ServerConnector's own
    return endPoint;
  }
}
