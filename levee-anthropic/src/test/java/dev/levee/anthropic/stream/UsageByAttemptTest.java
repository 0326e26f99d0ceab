package dev.levee.anthropic.stream;

import static dev.levee.anthropic.stream.Events.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.message.TokenUsage;
import dev.levee.anthropic.sse.SseEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A stream's usage split by attempt ({@link StreamSplicer#usageByAttempt()}), which the gateway
 * counts and prices under the model of each attempt's target: each attempt's own input, and its
 * share of the client's answer as output, the parts adding up to the usage of the client's final
 * {@code message_delta}. The scripts are {@link RecoveredAnswerStopsEarlyRegressionTest}'s: {@code
 * max_tokens: 40}, one token a word, a first attempt of 10 input tokens.
 */
class UsageByAttemptTest {

  private final StreamSplicer splicer = new StreamSplicer(false, 40);
  private final Events.Client client = new Events.Client();

  private void feed(SseEvent... events) throws StreamFailureException {
    for (SseEvent e : events) {
      client.receive(splicer.accept(e));
    }
  }

  private void words(int from, int to) throws StreamFailureException {
    for (int i = from; i <= to; i++) {
      feed(text(0, " w" + i));
    }
  }

  private static SseEvent continuationStart(String model, int inputTokens) {
    return messageStart("msg_2", model, "{\"input_tokens\":" + inputTokens + ",\"output_tokens\":1}");
  }

  /** The client's final usage (input and output: the scripts report no cache tokens). */
  private TokenUsage clientUsage() {
    return TokenUsage.of(client.usage);
  }

  private static TokenUsage sum(List<TokenUsage> parts) {
    return parts.stream().reduce(TokenUsage.NONE, TokenUsage::plus);
  }

  @Test
  void anUnbrokenStreamIsOneAttemptAsItReportedIt() throws Exception {
    feed(messageStart("msg_1", 10), textStart(0));
    words(1, 12);
    feed(stop(0), messageDelta("end_turn", 12), messageStop());

    assertThat(splicer.usageByAttempt()).containsExactly(new TokenUsage(10, 12, 0, 0));
  }

  @Test
  void aContinuationOnAnotherModelHasItsOwnInputAndThePartItWrote() throws Exception {
    feed(messageStart("msg_1", 10), textStart(0));
    for (int i = 0; i < 10; i++) {
      feed(text(0, " ab"));
    }
    splicer.endAttempt(); // 30 bytes counted high: 15
    splicer.beginRecovery(true);
    feed(continuationStart("m-fallback", 20), textStart(0), text(0, " cd"), stop(0), messageDelta("max_tokens", 25),
        messageStop());

    List<TokenUsage> parts = splicer.usageByAttempt();
    assertThat(parts).containsExactly(new TokenUsage(10, 15, 0, 0), new TokenUsage(20, 25, 0, 0));
    assertThat(sum(parts)).isEqualTo(clientUsage()).isEqualTo(new TokenUsage(30, 40, 0, 0));
  }

  @Test
  void aCountCorrectedByTheNextAttemptMovesTheOutputToTheAttemptThatWroteIt() throws Exception {
    feed(messageStart("msg_1", 10), textStart(0));
    words(1, 24);
    assertThat(splicer.endAttempt()).as("counted high, at most max_tokens").isEqualTo(40);
    splicer.beginRecovery(true);
    feed(continuationStart("m", 10 + 24), textStart(0), text(0, " w25"), stop(0), messageDelta("max_tokens", 1),
        messageStop()); // the upstream's own count: 24; the answer stopped short and goes on
    splicer.endAttempt();
    splicer.goOn(true);
    feed(continuationStart("m", 10 + 25), textStart(0));
    words(26, 40);
    feed(stop(0), messageDelta("max_tokens", 15), messageStop());

    List<TokenUsage> parts = splicer.usageByAttempt();
    assertThat(parts).containsExactly(new TokenUsage(10, 24, 0, 0), new TokenUsage(34, 1, 0, 0),
        new TokenUsage(35, 15, 0, 0));
    assertThat(sum(parts)).isEqualTo(clientUsage()).isEqualTo(new TokenUsage(79, 40, 0, 0));
  }

  @Test
  void aContinuationDroppedAtItsMessageStartCountsItsInputAndNoOutput() throws Exception {
    feed(messageStart("msg_1", 10), textStart(0));
    words(1, 40); // the whole answer, cut before its message_delta
    splicer.endAttempt();
    splicer.beginRecovery(true);
    feed(continuationStart("m", 10 + 40));

    List<TokenUsage> parts = splicer.usageByAttempt();
    assertThat(parts).containsExactly(new TokenUsage(10, 40, 0, 0), new TokenUsage(50, 0, 0, 0),
        TokenUsage.NONE); // no attempt after the dropped one
    assertThat(sum(parts)).isEqualTo(clientUsage()).isEqualTo(new TokenUsage(60, 40, 0, 0));
  }
}
