package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import com.anthropic.client.AnthropicClient;
import com.anthropic.core.JsonValue;
import com.anthropic.models.messages.ContentBlock;
import com.anthropic.models.messages.ContentBlockParam;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.StopReason;
import com.anthropic.models.messages.ThinkingConfigAdaptive;
import com.anthropic.models.messages.Tool;
import com.anthropic.models.messages.ToolResultBlockParam;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.SseEvent;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Tool use and thinking blocks, streamed and continued. */
class ToolUseAndThinkingTest extends InstantEmulatorTest {

  private final AnthropicClient client = Sdk.client(emulator);

  @AfterEach
  void closeClient() {
    client.close();
  }

  private static ObjectNode withTool(ObjectNode body) {
    ArrayNode tools = body.putArray("tools");
    ObjectNode tool = tools.addObject();
    tool.put("name", "get_weather");
    tool.put("description", "Weather for a city");
    ObjectNode schema = tool.putObject("input_schema");
    schema.put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    properties.putObject("city").put("type", "string");
    properties.putObject("days").put("type", "integer");
    properties.putObject("metric").put("type", "boolean");
    return body;
  }

  @Test
  void withToolsTheAnswerIsShortTextThenAToolUseStreamedAsInputJsonDeltas() throws Exception {
    List<SseEvent> events = wire.events(withTool(Wire.body("emu-ok", true, "Weather in Oslo?")));
    JsonNode json = wire.message(withTool(Wire.body("emu-ok", false, "Weather in Oslo?")));

    JsonNode toolStart = events.stream().map(e -> Json.tryParse(e.data()))
        .filter(d -> d.path("type").asText().equals("content_block_start") && d.path("index").asInt() == 1)
        .findFirst().orElseThrow();
    assertThat(toolStart.path("content_block").path("type").asText()).isEqualTo("tool_use");
    assertThat(toolStart.path("content_block").path("id").asText()).startsWith("toolu_");
    assertThat(toolStart.path("content_block").path("name").asText()).isEqualTo("get_weather");
    assertThat(toolStart.path("content_block").path("input").isEmpty()).isTrue();
    List<String> fragments = events.stream().map(e -> Json.tryParse(e.data()))
        .filter(d -> d.path("delta").path("type").asText().equals("input_json_delta"))
        .map(d -> d.path("delta").path("partial_json").asText()).toList();
    assertThat(fragments.size()).isGreaterThan(2);
    assertThat(fragments.getFirst()).isEmpty();
    JsonNode input = Json.tryParse(String.join("", fragments));
    assertThat(input.path("city").isTextual()).isTrue();
    assertThat(input.path("days").isInt()).isTrue();
    assertThat(input.path("metric").isBoolean()).isTrue();
    JsonNode toolUse = json.path("content").get(1);
    assertThat(toolUse.path("input")).isEqualTo(input);
    assertThat(json.path("stop_reason").asText()).isEqualTo("tool_use");
    assertThat(Words.count(json.path("content").get(0).path("text").asText())).isBetween(8, 15);
  }

  @Test
  void theSdkAccumulatesTheToolUseAndAToolResultGetsAFinalText() {
    Tool tool = Tool.builder().name("lookup").inputSchema(Tool.InputSchema.builder()
        .properties(Tool.InputSchema.Properties.builder()
            .putAdditionalProperty("query", JsonValue.from(Map.of("type", "string"))).build()).build()).build();
    MessageCreateParams ask = MessageCreateParams.builder().model("claude-sonnet-4-5").maxTokens(1024)
        .addTool(tool).addUserMessage("Find the lamp.").build();

    Message streamed = Sdk.streamed(client, ask);
    Message json = client.messages().create(ask);
    ContentBlock call = streamed.content().get(1);
    MessageCreateParams answer = ask.toBuilder().addMessage(json)
        .addUserMessageOfContentBlockParams(List.of(ContentBlockParam.ofToolResult(ToolResultBlockParam.builder()
            .toolUseId(call.toolUse().orElseThrow().id()).content("It is in the hall.").build()))).build();
    Message last = client.messages().create(answer);

    assertThat(streamed.stopReason()).contains(StopReason.TOOL_USE);
    assertThat(call.toolUse().orElseThrow().name()).isEqualTo("lookup");
    assertThat(call.toolUse().orElseThrow()._input()).isEqualTo(json.content().get(1).toolUse().orElseThrow()._input());
    assertThat(last.stopReason()).contains(StopReason.END_TURN);
    assertThat(last.content()).allMatch(Sdk::isText);
  }

  @Test
  void aContinuationOfTheTextContinuesThenMakesTheToolCall() throws Exception {
    JsonNode full = wire.message(withTool(Wire.body("emu-ok", false, "Weather in Oslo?")));
    String text = full.path("content").get(0).path("text").asText();
    String partial = Words.first(text, 3);

    JsonNode prefill = wire.message(withTool(Wire.body("emu-ok", false, "Weather in Oslo?", partial)));
    JsonNode noPrefill = wire.message(withTool(Wire.body("emu-ok-noprefill", false, "Weather in Oslo?", partial,
        "continue")));

    assertThat(partial + prefill.path("content").get(0).path("text").asText()).isEqualTo(text);
    assertThat(prefill.path("content").get(1)).isEqualTo(full.path("content").get(1));
    assertThat(noPrefill.path("content").get(0).path("text").asText())
        .isEqualTo(Words.last(partial, 2) + text.substring(partial.length()));
    assertThat(noPrefill.path("content").get(1)).isEqualTo(full.path("content").get(1));
    assertThat(noPrefill.path("stop_reason").asText()).isEqualTo("tool_use");
  }

  @Test
  void aPartialWithTheCompleteTextGetsOnlyTheToolCall() throws Exception {
    JsonNode full = wire.message(withTool(Wire.body("emu-ok", false, "Weather in Oslo?")));
    ObjectNode body = withTool(Wire.body("emu-ok", false, "Weather in Oslo?"));
    ArrayNode partial = body.withArray("messages").addObject().put("role", "assistant")
        .putArray("content");
    partial.add(full.path("content").get(0));

    JsonNode rest = wire.message(body);

    assertThat(rest.path("content")).hasSize(1);
    assertThat(rest.path("content").get(0)).isEqualTo(full.path("content").get(1));
  }

  @Test
  void withThinkingAThinkingBlockComesFirstWithThinkingDeltasAndOneSignature() throws Exception {
    ObjectNode body = Wire.body("emu-ok", true, "Think about bridges.");
    body.putObject("thinking").put("type", "enabled").put("budget_tokens", 1024);

    List<SseEvent> events = wire.events(body);
    Message adaptive = Sdk.streamed(client, MessageCreateParams.builder().model("emu-ok").maxTokens(1024)
        .thinking(ThinkingConfigAdaptive.builder().build()).addUserMessage("Think about bridges.").build());

    List<String> deltaTypes = events.stream().map(e -> Json.tryParse(e.data()))
        .filter(d -> d.path("type").asText().equals("content_block_delta") && d.path("index").asInt() == 0)
        .map(d -> d.path("delta").path("type").asText()).toList();
    assertThat(deltaTypes.getLast()).isEqualTo("signature_delta");
    assertThat(deltaTypes.subList(0, deltaTypes.size() - 1)).isNotEmpty().containsOnly("thinking_delta");
    assertThat(adaptive.content().get(0).thinking()).hasValueSatisfying(thinking -> {
      assertThat(Words.count(thinking.thinking())).isBetween(15, 30);
      assertThat(thinking.signature()).isNotBlank();
    });
    assertThat(Sdk.text(adaptive)).isEqualTo(Wire.streamedText(events))
        .isEqualTo(Wire.text(wire.message(Wire.body("emu-ok", false, "Think about bridges."))));
  }

  @Test
  void aContinuationHoldingTheWholeThinkingBlockContinuesWithTheText() throws Exception {
    ObjectNode ask = Wire.body("emu-ok", false, "Think about bridges.");
    ask.putObject("thinking").put("type", "enabled").put("budget_tokens", 1024);
    JsonNode full = wire.message(ask);
    ObjectNode continued = ask.deepCopy();
    ArrayNode partial = continued.withArray("messages").addObject().put("role", "assistant")
        .putArray("content");
    partial.add(full.path("content").get(0));
    partial.addObject().put("type", "text").put("text", Words.first(Wire.text(full), 4));

    JsonNode rest = wire.message(continued);

    assertThat(rest.path("content")).hasSize(1);
    assertThat(Words.first(Wire.text(full), 4) + Wire.text(rest)).isEqualTo(Wire.text(full));
    assertThat(emulator.log().getLast().continuation()).isEqualTo("prefill");
  }
}
