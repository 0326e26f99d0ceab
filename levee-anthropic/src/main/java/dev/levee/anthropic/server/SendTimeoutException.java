package dev.levee.anthropic.server;

import dev.levee.core.time.Spans;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.Request;

/**
 * Why the server closed a connection whose write to the client had been pending for {@link
 * ServerLimits#sendTimeout()} with no byte of it taken ({@link SendDeadline}): the client stopped
 * reading. The handler's write fails as when the client disconnects; {@link #endedBySendTimeout}
 * tells the two apart, so that a gateway can log "our clients are too slow to read our answers" (a
 * capacity or client problem an operator may alert on) apart from "the user closed the tab".
 */
public final class SendTimeoutException extends TimeoutException {

  /** The connection attribute that marks a connection the send timeout cut. */
  static final String ATTRIBUTE = SendTimeoutException.class.getName() + ".cut";

  /** @param timeout the send timeout that ran out */
  SendTimeoutException(Duration timeout) {
    super("the client took no byte of the answer for " + Spans.of(timeout));
  }

  /**
   * Whether the server's send timeout cut {@code request}'s connection (false for a request with no
   * connection). The connection is marked before it is closed, so a handler whose write failed, or
   * whose failure listener fired, reads it true then; ask before the exchange completes (Jetty may
   * reuse the request's state once it has).
   */
  public static boolean endedBySendTimeout(Request request) {
    ConnectionMetaData connection = request.getConnectionMetaData();
    return connection != null && connection.getAttribute(ATTRIBUTE) != null;
  }
}
