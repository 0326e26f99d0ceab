package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.io.ByteArrayEndPoint;
import org.junit.jupiter.api.Test;

/**
 * Regression (hostile-client session): a client that sent an empty line (CRLF) after its request's
 * body, as old HTTP/1.0 clients do after a POST (RFC 9112 section 2.2: a server SHOULD ignore at
 * least one empty line before a request-line), was taken for gone when that line arrived while the
 * request was in flight: its upstream call was cancelled, the access log said {@code 499
 * client_gone}, and the client, still waiting, got no answer and a closed connection. Jetty itself
 * ignores such a line; the watch now does too, and goes on watching.
 */
class BlankLineAfterBodyRegressionTest {

  @Test
  void anEmptyLineAfterTheBodyIsNoClientGone() {
    QuietEndPoint endPoint = new QuietEndPoint();
    AtomicBoolean gone = new AtomicBoolean();
    DisconnectWatch watch = DisconnectWatch.start(endPoint, () -> gone.set(true));

    endPoint.addInput("\r\n");
    endPoint.getFillInterest().fillable();

    assertThat(gone).isFalse();
    assertThat(watch.clientGone()).isFalse();
    assertThat(endPoint.getFillInterest().isInterested()).as("still watching").isTrue();
  }

  @Test
  void emptyLinesInPiecesAreIgnoredAndALaterCloseIsStillNoticed() {
    QuietEndPoint endPoint = new QuietEndPoint();
    AtomicBoolean gone = new AtomicBoolean();
    DisconnectWatch.start(endPoint, () -> gone.set(true));

    endPoint.addInput("\r");
    endPoint.getFillInterest().fillable();
    endPoint.addInput("\n\n");
    endPoint.getFillInterest().fillable();
    assertThat(gone).isFalse();

    endPoint.addInputEOF(); // then the client really leaves
    endPoint.getFillInterest().fillable();
    assertThat(gone).isTrue();
  }

  @Test
  void bytesOfAnythingElseMidExchangeStillMeanTheClientIsGone() {
    QuietEndPoint endPoint = new QuietEndPoint();
    AtomicBoolean gone = new AtomicBoolean();
    DisconnectWatch.start(endPoint, () -> gone.set(true));

    endPoint.addInput("\r\nGET /health HTTP/1.1\r\n");
    endPoint.getFillInterest().fillable();

    assertThat(gone).isTrue();
  }

  /** An in-memory connection whose readability the test signals itself, as the selector would. */
  private static final class QuietEndPoint extends ByteArrayEndPoint {
    @Override
    protected void needsFillInterest() {
      // the test calls fillable() itself
    }
  }
}
