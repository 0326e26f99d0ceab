package dev.levee.anthropic.stream;

import static dev.levee.anthropic.stream.Events.*;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.message.MessagesRequest;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.upstream.OriginalRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): a recovery's continuation asked for the client's whole {@code
 * max_tokens} again, so a recovered stream could run past it — with {@code max_tokens: 40}, 47 words
 * ending {@code end_turn} with {@code output_tokens: 39}, where the unbroken answer is 40 words ending
 * {@code max_tokens}. The continuation now asks for what is left after the output the client
 * already has (counted high when the upstream never said), nothing is asked when nothing is left
 * (the stream ends with {@code max_tokens}), and the final usage counts the delivered part.
 */
class RecoveryOutputBudgetRegressionTest {

  private static byte[] body(String fields) {
    return ("{\"model\":\"m\",\"max_tokens\":40," + fields + "\"stream\":true,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"Tell me\"}]}").getBytes(StandardCharsets.UTF_8);
  }

  private static ObjectNode textBlock(String t) {
    return Json.MAPPER.createObjectNode().put("type", "text").put("text", t);
  }

  private static ObjectNode thinkingBlock(String t) {
    return Json.MAPPER.createObjectNode().put("type", "thinking").put("thinking", t).put("signature", "sig");
  }

  @Test
  void theContinuationAsksForTheMaxTokensLeftAfterWhatWasSpent() {
    JsonNode sent = Json.tryParse(RecoveryRequest.build(body(""), "m", List.of(textBlock("one two")), false, 12));

    assertThat(sent.path("max_tokens").asLong()).isEqualTo(28);
  }

  @Test
  void aThinkingBudgetThatNoLongerFitsIsLoweredBelowTheNewMaxTokens() {
    String json = new String(body("\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":4000},"),
        StandardCharsets.UTF_8).replace("\"max_tokens\":40", "\"max_tokens\":5000");
    JsonNode sent = Json.tryParse(RecoveryRequest.build(json.getBytes(StandardCharsets.UTF_8), "m",
        List.of(thinkingBlock("hmm"), textBlock("one two")), true, 2000));

    assertThat(sent.path("max_tokens").asLong()).isEqualTo(3000);
    assertThat(sent.path("thinking").path("budget_tokens").asLong()).isEqualTo(2999);
    assertThat(sent.path("messages").get(1).path("content").get(0).path("type").asText()).isEqualTo("thinking");
  }

  @Test
  void thinkingIsRemovedWithItsBlocksWhenNoBudgetOfTheApisLeast1024Fits() {
    String json = new String(body("\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":1500},"), StandardCharsets.UTF_8)
        .replace("\"max_tokens\":40", "\"max_tokens\":2000");
    JsonNode sent = Json.tryParse(RecoveryRequest.build(json.getBytes(StandardCharsets.UTF_8), "m",
        List.of(thinkingBlock("hmm"), textBlock("one two")), true, 1000));

    assertThat(sent.path("max_tokens").asLong()).isEqualTo(1000);
    assertThat(sent.has("thinking")).isFalse();
    JsonNode assistant = sent.path("messages").get(1);
    assertThat(assistant.path("content")).hasSize(1);
    assertThat(assistant.path("content").get(0).path("text").asText()).isEqualTo("one two");
  }

  @Test
  void aTiersMaxTokensCapIsWhatTheOutputLeftIsCountedFrom() throws Exception {
    OriginalRequest request = new OriginalRequest("/v1/messages", null, Map.of(), MessagesRequest.parse(body("")));

    assertThat(request.maxTokens()).isEqualTo(40);
    assertThat(request.shaped(25, Set.of()).maxTokens()).isEqualTo(25);
    assertThat(request.shaped(100, Set.of()).maxTokens()).isEqualTo(40);
  }

  @Test
  void aCutAttemptsOutputIsCountedFromWhatTheClientReceivedNotItsMessageStart() throws Exception {
    StreamSplicer splicer = new StreamSplicer(false, 40);
    Events.Client client = new Events.Client();
    // 4 deltas, 24 bytes: at 2 bytes a token, 12 tokens; the attempt itself reported only 1
    for (SseEvent e : List.of(messageStart("msg_1", 10), textStart(0), text(0, "river"), text(0, " stone"),
        text(0, " lamp"), text(0, " harbor"))) {
      client.receive(splicer.accept(e));
    }

    assertThat(splicer.endAttempt()).isEqualTo(12);

    splicer.beginRecovery(true);
    // a continuation whose message_start reports no input_tokens: nothing tells the real count
    for (SseEvent e : List.of(messageStart("msg_2", "m", "{\"output_tokens\":1}"), textStart(0), text(0, " signal"), stop(0),
        messageDelta("max_tokens", 28), messageStop())) {
      client.receive(splicer.accept(e));
    }

    assertThat(client.stopReason).isEqualTo("max_tokens"); // the continuation's own, at its lowered limit
    assertThat(client.usage.path("output_tokens").asLong()).isEqualTo(40); // 12 delivered + 28: the client's max_tokens
  }

  @Test
  void aBreakWithNoOutputLeftEndsTheMessageAsAnUnbrokenOneAtMaxTokens() throws Exception {
    StreamSplicer splicer = new StreamSplicer(false, 4);
    Events.Client client = new Events.Client();
    for (SseEvent e : List.of(messageStart("msg_1", 10), textStart(0), text(0, "river stone"))) {
      client.receive(splicer.accept(e));
    }
    assertThat(splicer.endAttempt()).as("11 bytes count 6, but no answer outgrows its max_tokens").isEqualTo(4);

    client.receive(splicer.finishAtMaxTokens());

    assertThat(client.received).extracting(SseEvent::event).containsExactly("message_start", "content_block_start",
        "content_block_delta", "content_block_stop", "message_delta", "message_stop");
    assertThat(client.stopReason).isEqualTo("max_tokens");
    assertThat(client.usage.path("output_tokens").asLong()).isEqualTo(4);
    assertThat(client.usage.path("input_tokens").asLong()).isEqualTo(10);
    assertThat(splicer.finished()).isTrue();
  }
}
