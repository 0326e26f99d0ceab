package dev.levee.gateway.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.core.ObjectMappers;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.sse.SseReader;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A replayed stream, accumulated by the official Java SDK, gives back the stored message. */
class SseReplayTest {

  private static final JsonMapper SDK = ObjectMappers.jsonMapper();

  private static final String USAGE = "\"usage\":{\"input_tokens\":1200,\"cache_creation_input_tokens\":0,"
      + "\"cache_read_input_tokens\":800,\"output_tokens\":321,\"service_tier\":\"standard\"}";

  private static String message(String content, String stopReason) {
    return "{\"id\":\"msg_01XFDUDYJgAACzvnptvVoYEL\",\"type\":\"message\",\"role\":\"assistant\","
        + "\"model\":\"claude-sonnet-4-5\",\"content\":[" + content + "],\"stop_reason\":\"" + stopReason + "\","
        + "\"stop_sequence\":null," + USAGE + "}";
  }

  static final String LONG_TEXT = "a".repeat(199) + "😀 then " + "a long answer, ".repeat(60);

  static final String TEXT = message("{\"type\":\"text\",\"text\":\"" + LONG_TEXT + "\"}", "end_turn");
  static final String TOOL_USE = message("{\"type\":\"text\",\"text\":\"Let me check.\"},"
      + "{\"type\":\"tool_use\",\"id\":\"toolu_01A\",\"name\":\"get_weather\","
      + "\"input\":{\"city\":\"Paris\",\"days\":[1,2],\"unit\":null,\"note\":\"" + "x".repeat(500) + "\"}}", "tool_use");
  static final String EMPTY_TOOL_INPUT = message("{\"type\":\"tool_use\",\"id\":\"toolu_01B\",\"name\":\"now\",\"input\":{}}",
      "tool_use");
  static final String THINKING = message("{\"type\":\"thinking\",\"thinking\":\"" + "Let me think. ".repeat(40)
      + "\",\"signature\":\"EqQBCkYIBxgCKkBsig==\"},{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va\"},"
      + "{\"type\":\"text\",\"text\":\"42\"}", "end_turn");
  static final String WEB_SEARCH = message("{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_01\",\"name\":\"web_search\",\"caller\":{\"type\":\"direct\"},"
      + "\"input\":{\"query\":\"levee height\"}},{\"type\":\"web_search_tool_result\",\"tool_use_id\":\"srvtoolu_01\","
      + "\"content\":[{\"type\":\"web_search_result\",\"url\":\"https://example.com/levee\",\"title\":\"Levees\","
      + "\"encrypted_content\":\"Eq8B\",\"page_age\":null}]},{\"type\":\"text\",\"text\":\"Levees are often 3 m high.\","
      + "\"citations\":[{\"type\":\"web_search_result_location\",\"url\":\"https://example.com/levee\",\"title\":\"Levees\","
      + "\"encrypted_index\":\"Eo8B\",\"cited_text\":\"typically 3 m\"}]}", "end_turn");
  static final String STOP_SEQUENCE = message("{\"type\":\"text\",\"text\":\"one, two\"}", "stop_sequence")
      .replace("\"stop_sequence\":null", "\"stop_sequence\":\"three\"");
  static final String EMPTY = message("", "end_turn");

  private static JsonNode sdkTree(Message message) throws Exception {
    return SDK.readTree(SDK.writeValueAsString(message));
  }

  private static Message accumulate(List<SseEvent> events) throws Exception {
    MessageAccumulator accumulator = MessageAccumulator.create();
    for (SseEvent event : events) {
      accumulator.accumulate(SDK.readValue(event.data(), RawMessageStreamEvent.class));
    }
    return accumulator.message();
  }

  static Stream<Arguments> storedMessages() {
    return Stream.of(
        Arguments.of("long text with an emoji", TEXT),
        Arguments.of("text then tool_use", TOOL_USE),
        Arguments.of("tool_use with empty input", EMPTY_TOOL_INPUT),
        Arguments.of("thinking, redacted thinking, text", THINKING),
        Arguments.of("web search with citations", WEB_SEARCH),
        Arguments.of("stopped by a stop sequence", STOP_SEQUENCE),
        Arguments.of("no content at all", EMPTY));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("storedMessages")
  void theOfficialSdkAccumulatesTheReplayIntoTheStoredMessage(String story, String stored) throws Exception {
    List<SseEvent> events = SseReplay.events(stored.getBytes(StandardCharsets.UTF_8));

    Message accumulated = accumulate(events);

    // compared as trees, not with validate(): SDK 3.14's ServerToolUseBlock.validate() rejects
    // every server tool name, including "web_search", as the API sends it
    Message original = SDK.readValue(stored, Message.class);
    assertThat(sdkTree(accumulated)).isEqualTo(sdkTree(original));
  }

  @Test
  void theEventsComeInTheApisOrder() {
    List<SseEvent> events = SseReplay.events(TOOL_USE.getBytes(StandardCharsets.UTF_8));

    assertThat(events).extracting(SseEvent::event).containsExactly(
        "message_start",
        "content_block_start", "content_block_delta", "content_block_stop",
        "content_block_start", "content_block_delta", "content_block_delta", "content_block_delta",
        "content_block_stop",
        "message_delta", "message_stop");
    assertThat(events.getFirst().data()).contains("\"content\":[]", "\"stop_reason\":null", "\"input_tokens\":1200");
    assertThat(events.get(5).data()).contains("\"type\":\"input_json_delta\"", "\"index\":1");
    assertThat(events.get(9).data()).contains("\"stop_reason\":\"tool_use\"", "\"output_tokens\":321");
  }

  @Test
  void longTextComesInSeveralDeltasWithoutSplittingAnEmoji() {
    List<String> pieces = SseReplay.chunks(LONG_TEXT);

    assertThat(pieces).hasSizeGreaterThan(2).allSatisfy(piece -> {
      assertThat(piece.length()).isLessThanOrEqualTo(SseReplay.TEXT_CHUNK);
      assertThat(Character.isHighSurrogate(piece.charAt(piece.length() - 1))).isFalse();
    });
    assertThat(pieces.get(0)).hasSize(199);
    assertThat(String.join("", pieces)).isEqualTo(LONG_TEXT);
  }

  @Test
  void theEncodedStreamReadsBackAsTheSameEvents() throws Exception {
    List<SseEvent> events = SseReplay.events(THINKING.getBytes(StandardCharsets.UTF_8));

    List<SseEvent> read = new ArrayList<>();
    try (SseReader reader = new SseReader(new ByteArrayInputStream(SseReplay.encode(events)))) {
      for (SseEvent event = reader.next(); event != null; event = reader.next()) {
        read.add(event);
      }
    }

    assertThat(read).isEqualTo(events);
  }

  @Test
  void somethingThatIsNotAMessageIsRefused() {
    assertThatThrownBy(() -> SseReplay.events("{\"type\":\"error\"}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SseReplay.events("nope".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
