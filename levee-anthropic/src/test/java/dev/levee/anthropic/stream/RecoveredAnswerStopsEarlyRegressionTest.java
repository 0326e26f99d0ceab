package dev.levee.anthropic.stream;

import static dev.levee.anthropic.stream.Events.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.sse.SseEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (session 11's cost): a recovered answer that reached the client's {@code max_tokens}
 * stopped early — the part delivered before the break was counted high (2 bytes a token), so the
 * continuation asked for too little, or nothing (20–26 words of 40 with the emulator). Now a
 * continuation's {@code message_start} input count, less the first attempt's, gives the
 * upstream's own count of the partial answer ({@link OutputCount}); a continuation that then
 * stopped short of the client's limit is continued once more, and one whose count leaves nothing
 * is dropped. Where that count is not usable the answer is counted high as before.
 *
 * <p>The script: {@code max_tokens: 40}, an answer of one token a word ({@code " w1"}…), the first
 * attempt reports 10 input tokens and breaks after 24 words (60 %), 95 bytes: counted high, 48.
 */
class RecoveredAnswerStopsEarlyRegressionTest {

  private final StreamSplicer splicer = new StreamSplicer(false, 40);
  private final Events.Client client = new Events.Client();

  private void feed(SseEvent... events) throws StreamFailureException {
    for (SseEvent e : events) {
      client.receive(splicer.accept(e));
    }
  }

  /** The words {@code from} to {@code to} of the answer, one delta each: " w1", " w2", … */
  private static SseEvent[] words(int from, int to) {
    List<SseEvent> deltas = new ArrayList<>();
    for (int i = from; i <= to; i++) {
      deltas.add(text(0, " w" + i));
    }
    return deltas.toArray(SseEvent[]::new);
  }

  private static String answer(int words) {
    StringBuilder text = new StringBuilder();
    for (int i = 1; i <= words; i++) {
      text.append(" w").append(i);
    }
    return text.toString();
  }

  private static SseEvent continuationStart(int inputTokens) {
    return messageStart("msg_2", "m", "{\"input_tokens\":" + inputTokens + ",\"output_tokens\":1}");
  }

  private long cutAt24Words() throws StreamFailureException {
    feed(messageStart("msg_1", 10), textStart(0));
    feed(words(1, 24));
    return splicer.endAttempt();
  }

  @Test
  void anAnswerCutAt60PercentComesOutFullLengthAtMaxTokens() throws Exception {
    assertThat(cutAt24Words()).as("95 bytes counted high: 48, at most max_tokens").isEqualTo(40);

    // nothing left by the high count: the recovery asks for 1 token and learns the real count
    splicer.beginRecovery(true);
    feed(continuationStart(10 + 24), textStart(0), text(0, " w25"), stop(0), messageDelta("max_tokens", 1),
        messageStop());
    assertThat(splicer.stoppedShort()).as("24 + 1 of 40: the answer goes on").isTrue();
    assertThat(splicer.finished()).isFalse();
    assertThat(splicer.endAttempt()).as("the upstream's own count").isEqualTo(25);

    splicer.goOn(true);
    feed(continuationStart(10 + 25), textStart(0));
    feed(words(26, 40));
    feed(stop(0), messageDelta("max_tokens", 15), messageStop());

    assertThat(client.text(0)).isEqualTo(answer(40));
    assertThat(client.stopReason).isEqualTo("max_tokens");
    assertThat(client.usage.path("output_tokens").asLong()).isEqualTo(40);
    assertThat(client.starts).isEqualTo(1);
    assertThat(client.stops).isEqualTo(1);
    assertThat(client.received.stream().filter(e -> e.event().equals("message_delta"))).hasSize(1);
  }

  @Test
  void aCacheHitOnTheContinuationDoesNotSkewTheCount() throws Exception {
    feed(messageStart("msg_1", "m", "{\"input_tokens\":10,\"cache_creation_input_tokens\":1000,\"output_tokens\":1}"),
        textStart(0));
    feed(words(1, 24));
    splicer.endAttempt();
    splicer.beginRecovery(true);
    feed(messageStart("msg_2", "m", "{\"input_tokens\":34,\"cache_read_input_tokens\":1000,\"output_tokens\":1}"),
        textStart(0), text(0, " w25"), stop(0), messageDelta("max_tokens", 1), messageStop());

    assertThat(splicer.stoppedShort()).isTrue();
    assertThat(splicer.endAttempt()).isEqualTo(25);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"no input_tokens", "another model", "more than counted high", "none", "fewer than one a 16 bytes"})
  void withoutAUsableCountTheContinuationLeavesTheAnswerCountedHighAsBefore(String why) throws Exception {
    // 10 deltas of 3 bytes: counted high, 15; a continuation asks for 25
    feed(messageStart("msg_1", 10), textStart(0));
    for (int i = 0; i < 10; i++) {
      feed(text(0, " ab"));
    }
    assertThat(splicer.endAttempt()).isEqualTo(15);
    splicer.beginRecovery(true);
    SseEvent start = switch (why) {
      case "no input_tokens" -> messageStart("msg_2", "m", "{\"output_tokens\":1}");
      case "another model" -> messageStart("msg_2", "m-fallback", "{\"input_tokens\":20,\"output_tokens\":1}");
      case "more than counted high" -> continuationStart(10 + 16);
      case "none" -> continuationStart(10);
      default -> continuationStart(10 + 1); // 30 bytes would be 30 bytes a token
    };
    feed(start, textStart(0), text(0, " cd"), stop(0), messageDelta("max_tokens", 25), messageStop());

    assertThat(splicer.stoppedShort()).isFalse();
    assertThat(splicer.finished()).isTrue();
    assertThat(client.stopReason).isEqualTo("max_tokens");
    assertThat(client.usage.path("output_tokens").asLong()).as("15 counted high + 25").isEqualTo(40);
  }

  @Test
  void aContinuationWhoseCountLeavesNothingIsDroppedAndTheAnswerEndsAtMaxTokens() throws Exception {
    feed(messageStart("msg_1", 10), textStart(0));
    feed(words(1, 40)); // the whole answer, cut before its message_delta
    assertThat(splicer.endAttempt()).isEqualTo(40);

    splicer.beginRecovery(true);
    feed(continuationStart(10 + 40)); // the stream reads no further once the splicer finished

    assertThat(client.text(0)).isEqualTo(answer(40));
    assertThat(client.stopReason).isEqualTo("max_tokens");
    assertThat(client.usage.path("output_tokens").asLong()).isEqualTo(40);
    assertThat(splicer.finished()).isTrue();
  }

  @Test
  void anAnswerGoesOnOnceAfterABreakNotAgainForACountThatDiffersByAToken() throws Exception {
    cutAt24Words();
    splicer.beginRecovery(true);
    feed(continuationStart(10 + 24), textStart(0), text(0, " w25"), stop(0), messageDelta("max_tokens", 1),
        messageStop());
    splicer.endAttempt();
    splicer.goOn(true);
    // the API's count of a prefill may differ from the output's by a token
    feed(continuationStart(10 + 24), textStart(0));
    feed(words(26, 40));
    feed(stop(0), messageDelta("max_tokens", 15), messageStop());

    assertThat(splicer.stoppedShort()).isFalse();
    assertThat(client.stopReason).isEqualTo("max_tokens");
    assertThat(client.usage.path("output_tokens").asLong()).isEqualTo(39);
    assertThat(client.text(0)).isEqualTo(answer(40));
  }

  @Test
  void anAnswerThatCannotGoOnEndsWhereItStoppedWithItsOwnStop() throws Exception {
    cutAt24Words();
    splicer.beginRecovery(true);
    feed(continuationStart(10 + 24), textStart(0), text(0, " w25"), stop(0), messageDelta("max_tokens", 1),
        messageStop());
    splicer.endAttempt();

    client.receive(splicer.finishShort());

    assertThat(client.text(0)).isEqualTo(answer(25));
    assertThat(client.stopReason).isEqualTo("max_tokens");
    assertThat(client.usage.path("output_tokens").asLong()).isEqualTo(25);
    assertThat(client.usage.path("input_tokens").asLong()).isEqualTo(10 + 34);
    assertThat(client.stops).isEqualTo(1);
  }

  @Test
  void aToolCallsInputIsPartOfTheTranscriptAndItsCount() throws Exception {
    StreamSplicer splicer = new StreamSplicer(false, -1);
    for (SseEvent e : List.of(messageStart("msg_1", 10), textStart(0), text(0, "Checking."), toolStart(1, "toolu_1", "weather"),
        json(1, ""), json(1, "{\"city\":"), json(1, "\"Paris\"}"), stop(1), messageDelta("tool_use", 20))) {
      splicer.accept(e);
    }

    Transcript transcript = splicer.transcript();
    String start = "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"weather\",\"input\":{}}";
    assertThat(transcript.tally().bytes()).isEqualTo("Checking.".length() + start.length() + "{\"city\":\"Paris\"}".length());
    assertThat(transcript.content().get(1).path("input").path("city").asText()).isEqualTo("Paris");
  }

  @Test
  void aToolCallHeldWhenTheStreamBrokeIsNotCounted() throws Exception {
    feed(messageStart("msg_1", 10), textStart(0), text(0, "Checking."), toolStart(1, "toolu_1", "weather"),
        json(1, "{\"city\":\"Paris, France, Europe\"}"));

    assertThat(splicer.endAttempt()).as("\"Checking.\" alone: the client never got the call, the recovery makes it again")
        .isEqualTo(5);
  }
}
