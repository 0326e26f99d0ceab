package dev.levee.anthropic.stream;

import static dev.levee.anthropic.stream.Events.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.sse.SseEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

class StreamSplicerTest {

  private StreamSplicer splicer = new StreamSplicer(false, -1);
  private final Events.Client client = new Events.Client();

  private void feed(SseEvent... events) throws StreamFailureException {
    for (SseEvent e : events) {
      client.receive(splicer.accept(e));
    }
  }

  @Test
  void anUnbrokenStreamPassesThroughAsTheSameEvents() throws Exception {
    List<SseEvent> upstream = List.of(messageStart("msg_1", 10), textStart(0), ping(), text(0, "Hello"),
        text(0, " world"), stop(0), messageDelta("end_turn", 2), messageStop());
    for (SseEvent e : upstream) {
      client.receive(splicer.accept(e));
    }

    assertThat(client.received).containsExactlyElementsOf(upstream);
    assertThat(client.text(0)).isEqualTo("Hello world");
    assertThat(splicer.finished()).isTrue();
  }

  @Test
  void aBlockStopWaitsForTheNextBlockOrTheMessageEnd() throws Exception {
    feed(messageStart("msg_1", 1), textStart(0), text(0, "a"));
    assertThat(splicer.accept(stop(0))).isEmpty();
    assertThat(splicer.accept(messageDelta("end_turn", 1))).extracting(SseEvent::event)
        .containsExactly("content_block_stop", "message_delta");
  }

  @Test
  void whenConfiguredADeltaRepeatedByteForByteIsDroppedAndCounted() throws Exception {
    splicer = new StreamSplicer(true, -1);
    feed(messageStart("msg_1", 1), textStart(0), text(0, "ab"), text(0, "ab"), text(0, "cd"), stop(0),
        messageDelta("end_turn", 2), messageStop());

    assertThat(client.text(0)).isEqualTo("abcd");
    assertThat(splicer.duplicates()).isEqualTo(1);
  }

  /** Regression: a chunk the model really streams twice (" very", " very") lost a word. */
  @Test
  void byDefaultARepeatedChunkIsKeptAndOnlyCounted() throws Exception {
    feed(messageStart("msg_1", 1), textStart(0), text(0, "a"), text(0, " very"), text(0, " very"), text(0, " big"),
        stop(0), messageDelta("end_turn", 4), messageStop());

    assertThat(client.text(0)).isEqualTo("a very very big");
    assertThat(splicer.duplicates()).isEqualTo(1);
  }

  @Test
  void eventDataThatIsNotJsonIsAMalformedStream() throws Exception {
    feed(messageStart("msg_1", 1), textStart(0));
    assertThatThrownBy(() -> splicer.accept(new SseEvent("content_block_delta", "{\"type\":\"content_blo")))
        .isInstanceOf(StreamFailureException.class)
        .satisfies(e -> assertThat(((StreamFailureException) e).failure().errorType()).isEqualTo("malformed_event"));
  }

  @Test
  void aCutInsideTextIsContinuedInTheSameBlockAfterAPrefill() throws Exception {
    feed(messageStart("msg_orig", 10), textStart(0), text(0, "The quick"), text(0, " brown "));
    assertThat(splicer.transcript().recoverable()).isTrue();
    assertThat(splicer.transcript().content()).extracting(n -> n.path("text").asText()).containsExactly("The quick brown ");

    splicer.endAttempt();
    splicer.beginRecovery(true);
    // the API continues the prefill "The quick brown" (trailing space stripped) with " fox jumps."
    feed(messageStart("msg_other", 14), textStart(0), text(0, " fox"), text(0, " jumps."), stop(0),
        messageDelta("end_turn", 3), messageStop());

    assertThat(client.starts).isEqualTo(1);
    assertThat(client.id).isEqualTo("msg_orig");
    assertThat(client.types).containsExactly(java.util.Map.entry(0, "text"));
    assertThat(client.text(0)).isEqualTo("The quick brown fox jumps.");
    assertThat(client.stops).isEqualTo(1);
    assertThat(client.stopReason).isEqualTo("end_turn");
  }

  @Test
  void aNoPrefillRecoveryThatRepeatsTheLastWordsIsTrimmed() throws Exception {
    feed(messageStart("msg_1", 10), textStart(0), text(0, "one two"), text(0, " three four"));

    splicer.endAttempt();
    splicer.beginRecovery(false);
    feed(messageStart("msg_2", 30), textStart(0), text(0, "three"), text(0, " four five"), text(0, " six"), stop(0),
        messageDelta("end_turn", 4), messageStop());

    assertThat(client.text(0)).isEqualTo("one two three four five six");
  }

  @Test
  void aPrefillRecoveryIsNotTrimmedOfRepeatedWords() throws Exception {
    feed(messageStart("msg_1", 10), textStart(0), text(0, "count: 1 2"));

    splicer.endAttempt();
    splicer.beginRecovery(true);
    feed(messageStart("msg_2", 30), textStart(0), text(0, " 2 3"), stop(0), messageDelta("end_turn", 4), messageStop());

    assertThat(client.text(0)).isEqualTo("count: 1 2 2 3");
  }

  @Test
  void usageIsSummedAcrossAttempts() throws Exception {
    feed(messageStart("msg_1", 10), textStart(0), text(0, "a b"));
    splicer.endAttempt();
    splicer.beginRecovery(true);
    feed(messageStart("msg_2", 12), textStart(0), text(0, " c"), stop(0), messageDelta("end_turn", 5), messageStop());

    assertThat(client.usage.path("input_tokens").asLong()).isEqualTo(22);
    // the cut attempt reported 1 in its message_start; "a b" (3 bytes) counted high is 2; + 5
    assertThat(client.usage.path("output_tokens").asLong()).isEqualTo(7);
  }

  // framing events in shapes the API may grow into: extra members, nested usage objects, escapes, members out of order
  private static final SseEvent ODD_START = new SseEvent("message_start", "{\"type\":\"message_start\",\"message\":"
      + "{\"id\":\"msg_\\u00e9\",\"content\":[],\"usage\":{\"input_tokens\":10,\"cache_creation\":"
      + "{\"ephemeral_5m_input_tokens\":4},\"output_tokens\":1,\"service_tier\":\"standard\",\"server_tool_use\":"
      + "{\"web_search_requests\":0}}},\"future\":{\"usage\":{\"input_tokens\":99}}}");
  private static final SseEvent ODD_BLOCK = new SseEvent("content_block_start", "{\"content_block\":{\"text\":\"\","
      + "\"t\\u0079pe\":\"text\",\"extra\":[1,{\"type\":\"tool_use\"}]},\"index\":0, \"type\":\"content_block_start\"}");
  private static final SseEvent ODD_END = new SseEvent("message_delta", "{\"type\":\"message_delta\",\"delta\":"
      + "{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5,\"server_tool_use\":{\"web_search_requests\":1},"
      + "\"note\":\"7\"}}");

  /** Framing events in odd shapes reach the client as the very bytes that came. */
  @Test
  void oddFramingEventsPassAsTheyCame() throws Exception {
    List<SseEvent> upstream = List.of(ODD_START, ODD_BLOCK, text(0, "Hello"), stop(0), ODD_END, messageStop());
    feed(upstream.toArray(SseEvent[]::new));

    assertThat(client.received).containsExactlyElementsOf(upstream);
    assertThat(client.received.get(0)).isSameAs(ODD_START);
    assertThat(client.received.get(1)).isSameAs(ODD_BLOCK);
    assertThat(client.received.get(4)).isSameAs(ODD_END);
    assertThat(client.types).containsExactly(java.util.Map.entry(0, "text"));
  }

  /** The usage of odd framing events is read as before: integral members summed, nested objects and strings left alone. */
  @Test
  void theUsageOfOddFramingEventsIsSummedAcrossAttempts() throws Exception {
    feed(ODD_START, ODD_BLOCK, text(0, "a b"));
    splicer.endAttempt();
    splicer.beginRecovery(true);
    feed(messageStart("msg_2", 12), textStart(0), text(0, " c"), stop(0), ODD_END, messageStop());

    // the delta's own members with its counts summed: input 10 + 12; output 2 ("a b" counted high) + 5
    assertThat(client.usage.toString()).isEqualTo("{\"output_tokens\":7,\"server_tool_use\":"
        + "{\"web_search_requests\":1},\"note\":\"7\",\"input_tokens\":22}");
  }

  @Test
  void aToolCallIsHeldUntilItIsCompleteAndTheMessageEnds() throws Exception {
    feed(messageStart("msg_1", 10), textStart(0), text(0, "Let me check."), stop(0), toolStart(1, "toolu_1", "weather"),
        json(1, "{\"city\":"), json(1, "\"Paris\"}"));

    assertThat(client.types).containsOnlyKeys(0);
    assertThat(client.open).isEqualTo(0); // the text block's stop waits with the held tool call

    feed(stop(1), messageDelta("tool_use", 9), messageStop());
    assertThat(client.types).containsEntry(1, "tool_use");
    assertThat(client.json.get(1).toString()).isEqualTo("{\"city\":\"Paris\"}");
    assertThat(client.stopReason).isEqualTo("tool_use");
  }

  @Test
  void aCutInsideAToolCallDiscardsItAndContinuesFromTheText() throws Exception {
    feed(messageStart("msg_1", 10), textStart(0), text(0, "Let me check."), stop(0), toolStart(1, "toolu_1", "weather"),
        json(1, "{\"ci"));
    List<ObjectNode> partial = splicer.transcript().content();
    assertThat(partial).hasSize(1);
    assertThat(partial.get(0).path("type").asText()).isEqualTo("text");

    splicer.endAttempt();
    splicer.beginRecovery(false);
    // the recovery repeats the text's last words, then makes the tool call afresh
    feed(messageStart("msg_2", 20), textStart(0), text(0, "check."), stop(0), toolStart(1, "toolu_2", "weather"),
        json(1, "{\"city\":\"Paris\"}"), stop(1), messageDelta("tool_use", 7), messageStop());

    assertThat(client.text(0)).isEqualTo("Let me check.");
    assertThat(client.types).containsExactly(java.util.Map.entry(0, "text"), java.util.Map.entry(1, "tool_use"));
    assertThat(client.json.get(1).toString()).isEqualTo("{\"city\":\"Paris\"}");
    assertThat(client.received).extracting(SseEvent::data).noneMatch(d -> d.contains("{\\\"ci\""));
  }

  @Test
  void aBreakInsideUnsignedThinkingCannotBeRecovered() throws Exception {
    feed(messageStart("msg_1", 10), thinkingStart(0), thinking(0, "Let me think"));
    assertThat(splicer.transcript().recoverable()).isFalse();
  }

  @Test
  void aBreakAfterTheThinkingSignatureIsRecoveredAfterTheThinkingBlock() throws Exception {
    feed(messageStart("msg_1", 10), thinkingStart(0), thinking(0, "Let me think."), signature(0, "sig-1"));
    assertThat(splicer.transcript().recoverable()).isTrue();
    assertThat(splicer.transcript().content().get(0).path("signature").asText()).isEqualTo("sig-1");

    splicer.endAttempt();
    splicer.beginRecovery(false);
    feed(messageStart("msg_2", 20), thinkingStart(0), thinking(0, "Again."), signature(0, "sig-2"), stop(0),
        textStart(1), text(1, "Answer."), stop(1), messageDelta("end_turn", 4), messageStop());

    assertThat(client.types).containsExactly(java.util.Map.entry(0, "thinking"), java.util.Map.entry(1, "text"));
    assertThat(client.text(0)).isEqualTo("Let me think.");
    assertThat(client.signatures).containsExactly(java.util.Map.entry(0, "sig-1"));
    assertThat(client.text(1)).isEqualTo("Answer.");
  }

  @Test
  void aBreakInsideTextAfterThinkingKeepsTheThinkingAndContinuesTheText() throws Exception {
    feed(messageStart("msg_1", 10), thinkingStart(0), thinking(0, "Hmm."), signature(0, "sig"), stop(0), textStart(1),
        text(1, "The answer"));
    assertThat(splicer.transcript().content()).extracting(n -> n.path("type").asText()).containsExactly("thinking", "text");

    splicer.endAttempt();
    splicer.beginRecovery(true);
    feed(messageStart("msg_2", 20), thinkingStart(0), thinking(0, "x"), signature(0, "s2"), stop(0), textStart(1),
        text(1, " is 42."), stop(1), messageDelta("end_turn", 4), messageStop());

    assertThat(client.text(1)).isEqualTo("The answer is 42.");
    assertThat(client.types).hasSize(2);
  }

  @Test
  void aCutAfterTheFinalMessageDeltaOnlyNeedsTheStop() throws Exception {
    feed(messageStart("msg_1", 10), textStart(0), text(0, "done"), stop(0), messageDelta("end_turn", 2));
    assertThat(splicer.messageDeltaSent()).isTrue();

    client.receive(splicer.finishWithoutStop());
    assertThat(client.stops).isEqualTo(1);
    assertThat(splicer.finished()).isTrue();
  }

  @Test
  void aRecoveryWhoseTextWasAlreadyCompleteClosesTheBlockAndGoesOn() throws Exception {
    feed(messageStart("msg_1", 10), textStart(0), text(0, "All said."), stop(0));

    splicer.endAttempt();
    splicer.beginRecovery(true);
    feed(messageStart("msg_2", 20), messageDelta("end_turn", 1), messageStop());

    assertThat(client.text(0)).isEqualTo("All said.");
    assertThat(client.stops).isEqualTo(1);
  }
}
