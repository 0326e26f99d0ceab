package dev.levee.anthropic.server;

import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.internal.HttpConnection;

/**
 * Jetty's HTTP/1.1 connections, counting those the server closes having received nothing on them:
 * no byte since accepted, no request served. Such a connection is closed without an answer — there
 * is no request to answer, and a 408 nobody asked for can be taken by a client for the answer to
 * the next request it sends on that connection — either at the connector's idle timeout or by
 * {@link HeaderDeadline}, whichever comes first. A connection the client closes itself is not
 * counted, nor one that sent part of a request head (its idle timeout closes it as quietly: Jetty
 * writes nothing for a request it never finished reading).
 *
 * <p>Thread-safe: the count is a {@link LongAdder}.
 */
final class SilentConnections extends HttpConnectionFactory {

  private final LongAdder closed = new LongAdder();

  SilentConnections(HttpConfiguration config) {
    super(config);
  }

  @Override
  public Connection newConnection(Connector connector, EndPoint endPoint) {
    HttpConnection connection = new HttpConnection(getHttpConfiguration(), connector, endPoint) {
      @Override
      public boolean onIdleExpired(TimeoutException timeout) {
        boolean close = super.onIdleExpired(timeout);
        if (close && silent(this)) {
          closed.increment(); // before the close: a client that sees its end sees the count
        }
        return close;
      }
    };
    connection.setTransferEncodingChunkMaxLength(getTransferEncodingChunkMaxLength());
    return configure(connection, connector, endPoint);
  }

  /** Whether {@code connection} has received no byte and served no request since it was accepted. */
  static boolean silent(HttpConnection connection) {
    return connection.getBytesIn() == 0 && connection.getMessagesIn() == 0;
  }

  /** Counts one silent connection the server closes otherwise than by the idle timeout ({@link HeaderDeadline}). */
  void closedOne() {
    closed.increment();
  }

  /** How many silent connections the server has closed since it was created. */
  long closed() {
    return closed.sum();
  }
}
