package dev.levee.anthropic.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.SelectorManager;
import org.eclipse.jetty.server.AbstractNetworkConnector;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Server;

/**
 * A Jetty connector that serves each connection from a virtual thread blocked in {@code read}
 * ({@link VirtualThreadEndPoint}) instead of a selector: Jetty's HTTP/1.1 connection, parser,
 * generator, compliance checks and handlers all as with Jetty's {@code ServerConnector}, and a
 * kept-alive connection's requests read, handled and answered on one virtual thread. One acceptor
 * thread; TCP_NODELAY on every connection, as {@code ServerConnector} sets it; the accept queue
 * from {@link #setAcceptQueueSize}. Accept listeners on the connector ({@code
 * NetworkConnectionLimit}) hear each connection's accept and close, as from {@code ServerConnector}.
 */
public final class VirtualThreadConnector extends AbstractNetworkConnector {

  private volatile ServerSocketChannel acceptChannel;
  private volatile int localPort = -1;
  private int acceptQueueSize = 50;

  public VirtualThreadConnector(Server server, ConnectionFactory... factories) {
    super(server, null, null, null, 1, factories);
  }

  /** The listen backlog (Jetty's and the JDK's default: 50). */
  public void setAcceptQueueSize(int size) {
    acceptQueueSize = size;
  }

  @Override
  public void open() throws IOException {
    if (acceptChannel == null) {
      InetSocketAddress address = getHost() == null ? new InetSocketAddress(getPort())
          : new InetSocketAddress(getHost(), getPort());
      ServerSocketChannel channel = ServerSocketChannel.open();
      try {
        channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        channel.bind(address, acceptQueueSize);
      } catch (IOException | RuntimeException e) { // an unresolved host is an UnresolvedAddressException
        channel.close();
        throw new IOException("Failed to bind to " + address, e); // as ServerConnector words it
      }
      localPort = ((InetSocketAddress) channel.getLocalAddress()).getPort();
      acceptChannel = channel;
    }
  }

  @Override
  public void close() {
    super.close();
    ServerSocketChannel channel = acceptChannel;
    acceptChannel = null;
    if (channel != null) {
      try {
        channel.close(); // the acceptor blocked in accept() wakes with an exception
      } catch (IOException e) {
        // closed already
      }
    }
  }

  @Override
  public boolean isOpen() {
    ServerSocketChannel channel = acceptChannel;
    return channel != null && channel.isOpen();
  }

  @Override
  public int getLocalPort() {
    return localPort;
  }

  @Override
  public Object getTransport() {
    return acceptChannel;
  }

  @Override
  protected void accept(int acceptorId) throws IOException {
    ServerSocketChannel channel = acceptChannel;
    if (channel == null || !channel.isOpen()) {
      throw new IllegalStateException("not accepting: the connector is closed");
    }
    SocketChannel socket = channel.accept();
    for (SelectorManager.AcceptListener l : getBeans(SelectorManager.AcceptListener.class)) {
      l.onAccepting(socket);
    }
    try {
      socket.setOption(StandardSocketOptions.TCP_NODELAY, true);
      VirtualThreadEndPoint[] opened = new VirtualThreadEndPoint[1];
      VirtualThreadEndPoint endPoint = new VirtualThreadEndPoint(socket, getScheduler(),
          () -> closed(opened[0], socket));
      opened[0] = endPoint;
      endPoint.setIdleTimeout(getIdleTimeout());
      Connection connection = getDefaultConnectionFactory().newConnection(this, endPoint);
      endPoint.setConnection(connection);
      endPoint.onOpen();
      onEndPointOpened(endPoint);
      for (SelectorManager.AcceptListener l : getBeans(SelectorManager.AcceptListener.class)) {
        l.onAccepted(socket);
      }
      connection.onOpen();
    } catch (IOException | RuntimeException e) {
      for (SelectorManager.AcceptListener l : getBeans(SelectorManager.AcceptListener.class)) {
        l.onAcceptFailed(socket, e);
      }
      socket.close();
    }
  }

  private void closed(VirtualThreadEndPoint endPoint, SocketChannel socket) {
    onEndPointClosed(endPoint);
    for (SelectorManager.AcceptListener l : getBeans(SelectorManager.AcceptListener.class)) {
      l.onClosed(socket);
    }
  }
}
