package dev.levee.anthropic.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.SseEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The message a stream carried, built from the bytes of its starts at the end (issue 11: the
 * assembler no longer keeps a tree per stream while it runs).
 */
class MessageAssemblerTest {

  private static MessageAssembler fed(List<SseEvent> events) {
    MessageAssembler assembler = new MessageAssembler();
    events.forEach(assembler::accept);
    return assembler;
  }

  @Test
  void aFinishedStreamGivesTheMessageTheApiWouldHaveReturned() {
    MessageAssembler assembler = fed(List.of(Events.messageStart("msg_1", 12), Events.ping(),
        Events.thinkingStart(0), Events.thinking(0, "Let me "), Events.thinking(0, "think."), Events.signature(0, "sig"),
        Events.stop(0), Events.textStart(1), Events.text(1, "Hello, "), Events.text(1, "world"), Events.stop(1),
        Events.toolStart(2, "toolu_1", "lookup"), Events.json(2, "{\"q\":"), Events.json(2, "\"levee\"}"),
        Events.stop(2), Events.messageDelta("tool_use", 40), Events.messageStop()));

    JsonNode message = Json.tryParse(assembler.message());

    assertThat(message.path("id").asText()).isEqualTo("msg_1");
    assertThat(message.path("stop_reason").asText()).isEqualTo("tool_use");
    assertThat(message.path("usage").path("input_tokens").asInt()).isEqualTo(12);
    assertThat(message.path("usage").path("output_tokens").asInt()).isEqualTo(40);
    JsonNode content = message.path("content");
    assertThat(content).hasSize(3);
    assertThat(content.get(0).path("thinking").asText()).isEqualTo("Let me think.");
    assertThat(content.get(0).path("signature").asText()).isEqualTo("sig");
    assertThat(content.get(1).path("text").asText()).isEqualTo("Hello, world");
    assertThat(content.get(2).path("input").path("q").asText()).isEqualTo("levee");
    assertThat(assembler.message()).isEqualTo(Json.bytes(message)); // built again: the same bytes
  }

  @Test
  void anUnfinishedStreamOrABrokenToolInputGivesNoMessage() {
    assertThat(fed(List.of(Events.messageStart("msg_2", 1), Events.textStart(0), Events.text(0, "Hel"))).message())
        .isNull();
    assertThat(fed(List.of(Events.messageStart("msg_3", 1), Events.toolStart(0, "toolu_2", "lookup"),
        Events.json(0, "{\"q\":"), Events.stop(0), Events.messageDelta("tool_use", 3), Events.messageStop()))
        .message()).isNull();
  }

  /**
   * Regression (session 13, review): a {@code message_start} whose usage is not an object made
   * {@link MessageAssembler#message()} throw (Jackson's {@code withObjectProperty}), in stage 6's
   * cache store, after the answer had streamed; such an answer is not kept.
   */
  @Test
  void aMessageWhoseUsageIsNotAnObjectGivesNoMessage() {
    SseEvent start = new SseEvent("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_4\","
        + "\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"usage\":\"n/a\"}}");

    assertThat(fed(List.of(start, Events.textStart(0), Events.text(0, "Hi"), Events.stop(0),
        Events.messageDelta("end_turn", 2), Events.messageStop())).message()).isNull();
  }
}
