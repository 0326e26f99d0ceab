package dev.levee.anthropic.error;

import java.io.EOFException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Locale;
import javax.net.ssl.SSLException;

/**
 * Says in plain words what went wrong on the way to an upstream when no (complete) answer came:
 * the text that reaches clients ("Last error: ...") and the access log. Never the JDK's own
 * wording, class names or certificate-path internals.
 */
public final class TransportError {

  private TransportError() {}

  /** What went wrong, in a few plain words (e.g. {@code connection refused}). */
  public static String describe(Throwable e) {
    if (e instanceof HttpConnectTimeoutException) {
      return "connect timed out";
    }
    if (e instanceof HttpTimeoutException) {
      return "attempt timed out";
    }
    if (causedBy(e, UnresolvedAddressException.class) || causedBy(e, UnknownHostException.class)) {
      return "the upstream's host name does not resolve";
    }
    if (e instanceof ConnectException) {
      return "connection refused";
    }
    if (causedBy(e, SSLException.class)) {
      String all = messages(e);
      return all.contains("certification path") || all.contains("certificate")
          ? "TLS handshake with the upstream failed: its certificate is not trusted"
          : "TLS handshake with the upstream failed";
    }
    String all = messages(e);
    if (all.contains("header parser received no bytes")) {
      return "the upstream closed the connection without answering";
    }
    if (all.contains("fixed content-length") || all.contains("bytes received")) {
      return "the upstream's answer ended before its content-length";
    }
    if (e instanceof EOFException || all.contains("eof reached") || all.contains("end of stream")) {
      return "the upstream closed the connection before its answer was complete";
    }
    if (all.contains("connection reset")) {
      return "connection reset by the upstream";
    }
    if (causedBy(e, ClosedChannelException.class) || all.contains("closed")) {
      return "the connection to the upstream was closed";
    }
    String own = e.getMessage();
    return own != null && !own.isBlank() && !looksInternal(own) ? own : "the connection to the upstream failed";
  }

  private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  /** Every message in the cause chain, lower case. */
  private static String messages(Throwable e) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t.getMessage() != null) {
        all.append(t.getMessage().toLowerCase(Locale.ROOT)).append('\n');
      }
    }
    return all.toString();
  }

  private static boolean looksInternal(String message) {
    return message.contains("java.") || message.contains("javax.") || message.contains("sun.")
        || message.contains("jdk.") || message.contains("Exception");
  }
}
