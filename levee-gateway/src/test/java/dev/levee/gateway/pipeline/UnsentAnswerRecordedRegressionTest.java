package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.Target;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (stage 6 robustness): the access record of an admitted request was written after
 * the responder returned, so an answer whose writing threw (a bug in the responder, Jetty refusing
 * the head) left no access line and no {@code levee_requests_total} count though its call was
 * made and settled. The handler now writes it in a {@code finally} ({@link Recorder#respondThenLog}), from {@link Sent#unsent}:
 * the call's real target and calls, the status the client got, outcome {@code error}.
 */
class UnsentAnswerRecordedRegressionTest {

  private static final Target MID = Requests.SMART.targets().get(1);

  private static Outcome.Answered answeredByAFallback() {
    return new Outcome.Answered(new ChainResult.Answered<>(Reply.whole(200, Map.of(), new byte[0]), MID, null, true,
        List.of()), 3);
  }

  @Test
  void anAnswerWhoseWritingFailedBeforeItsHeadIsRecordedAsTheServersFiveHundred() {
    Sent sent = Sent.unsent(answeredByAFallback(), 0, new IllegalStateException("head refused"));

    assertThat(sent.status()).as("the server answers a bug with a 500").isEqualTo(500);
    assertThat(sent.target()).isEqualTo(MID);
    assertThat(sent.calls()).isEqualTo(3);
    assertThat(sent.fallback()).isTrue();
    assertThat(sent.outcome()).isEqualTo("error answering IllegalStateException");
  }

  @Test
  void anAnswerWhoseHeadHadLeftKeepsTheStatusSent() {
    Sent sent = Sent.unsent(answeredByAFallback(), 200, new IllegalArgumentException());

    assertThat(sent.status()).isEqualTo(200);
  }

  @Test
  void aCancelledRunNamesNoTargetAndAnErrorIsNamedAsSuch() {
    Sent sent = Sent.unsent(new Outcome.Cancelled(1), 0, null);

    assertThat(sent.target()).isNull();
    assertThat(sent.outcome()).isEqualTo("error answering Error");
  }
}
