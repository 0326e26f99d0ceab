package dev.levee.anthropic.server;

import java.util.concurrent.CancellationException;
import org.eclipse.jetty.io.QuietException;

/**
 * How a handler ends an exchange whose client went away before the answer's head was sent: the
 * connection is closed with no answer, and the exchange is neither answered by the server's error
 * handler nor counted as refused — the handler has logged it already (status 499, {@code
 * client_gone}). Stackless: a client leaving is ordinary control flow.
 */
public final class ClientGoneException extends CancellationException implements QuietException {

  public ClientGoneException() {
    super("client went away");
  }

  @Override
  public synchronized Throwable fillInStackTrace() {
    return this;
  }

  /** Whether {@code cause}, or what it wraps, says the client went away. */
  static boolean in(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ClientGoneException) {
        return true;
      }
    }
    return false;
  }
}
