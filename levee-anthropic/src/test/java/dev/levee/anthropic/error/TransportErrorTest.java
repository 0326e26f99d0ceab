package dev.levee.anthropic.error;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.retry.FailureKind;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnresolvedAddressException;
import java.time.InstantSource;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** Regression (issue 9, item 11): transport failures reached clients in the JDK's own words. */
class TransportErrorTest {

  private final ErrorClassifier classifier = new ErrorClassifier(InstantSource.system());

  @Test
  void transportFailuresAreDescribedInPlainWords() {
    assertThat(message(new IOException("HTTP/1.1 header parser received no bytes")))
        .isEqualTo("the upstream closed the connection without answering");
    assertThat(message(new IOException("fixed content-length: 1000, bytes received: 17")))
        .isEqualTo("the upstream's answer ended before its content-length");
    assertThat(message(new EOFException("EOF reached while reading")))
        .isEqualTo("the upstream closed the connection before its answer was complete");
    assertThat(message(new java.net.SocketException("Connection reset"))).isEqualTo("connection reset by the upstream");
    assertThat(message(new IOException(new ClosedChannelException()))).isEqualTo("the connection to the upstream was closed");
    ConnectException unresolved = new ConnectException();
    unresolved.initCause(new UnresolvedAddressException());
    assertThat(message(unresolved)).isEqualTo("the upstream's host name does not resolve");
    assertThat(message(new ConnectException())).isEqualTo("connection refused");
    assertThat(message(new SSLHandshakeException("PKIX path building failed: "
        + "sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path")))
        .isEqualTo("TLS handshake with the upstream failed: its certificate is not trusted");
    assertThat(message(new IllegalStateException("java.lang.Foo broke"))).isEqualTo("the connection to the upstream failed");
    assertThat(message(new IOException("upstream body exceeds 1024 bytes"))).isEqualTo("upstream body exceeds 1024 bytes");
  }

  @Test
  void timeoutsKeepTheirKinds() {
    assertThat(classifier.classifyException(new HttpConnectTimeoutException("x")).kind()).isEqualTo(FailureKind.CONNECTION);
    assertThat(classifier.classifyException(new HttpTimeoutException("x")).kind()).isEqualTo(FailureKind.TIMEOUT);
    assertThat(classifier.classifyException(new HttpTimeoutException("request timed out")).message())
        .isEqualTo("attempt timed out");
  }

  private String message(Throwable e) {
    return classifier.classifyException(e).message();
  }
}
