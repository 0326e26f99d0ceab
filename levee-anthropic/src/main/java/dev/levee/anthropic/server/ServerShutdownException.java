package dev.levee.anthropic.server;

import java.util.concurrent.CancellationException;
import org.eclipse.jetty.server.Request;

/**
 * What a handler's failure listeners hear when a stopping server has ended its exchange after
 * {@link ServerLimits#shutdownGrace()}: stop working on it (cancel upstream calls) and log it as
 * a shutdown, not as a client that left ({@link #endedByShutdown}).
 */
public final class ServerShutdownException extends CancellationException {

  static final String ATTRIBUTE = "dev.levee.server.shutdown";

  ServerShutdownException() {
    super("server shutting down");
  }

  /** Whether the server ended {@code request}'s exchange because it is stopping. */
  public static boolean endedByShutdown(Request request) {
    return request.getAttribute(ATTRIBUTE) != null;
  }
}
