package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 8 newcomer trial): a stream Levee could not complete had the access line
 * {@code outcome=stream_failed recoveries=1 …} with no reason, while its client's {@code event:
 * error} said {@code stream_stalled: no content for 5000 ms}. The line now says what the event said.
 */
class StreamFailureInAccessLogRegressionTest {

  @Test
  void aFailedStreamsLineSaysWhatItsErrorEventSaid() {
    Failure stalled = Failure.of(FailureKind.TIMEOUT, 0, "stream_stalled", "no content for 5000 ms");
    assertThat(Responder.streamFailure(stalled)).isEqualTo(" stream_stalled: no content for 5000 ms");
  }

  @Test
  void nothingForAStreamThatDidNotFail() {
    assertThat(Responder.streamFailure(null)).isEmpty();
  }

  @Test
  void anUpstreamsOwnMessageStaysOneShortLine() {
    Failure inBand = Failure.of(FailureKind.OVERLOADED, 0, "overloaded_error", "line one\nline=two\r" + "x".repeat(300));
    String why = Responder.streamFailure(inBand);
    assertThat(why).doesNotContain("\n", "\r").startsWith(" overloaded_error: line one line=two ").hasSize(201);
  }
}
