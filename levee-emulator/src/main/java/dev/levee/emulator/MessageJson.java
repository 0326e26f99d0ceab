package dev.levee.emulator;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;

/** The message object of the Messages API, as a JSON response body and as stream events. */
final class MessageJson {

  private MessageJson() {}

  /** The complete message of a non-streaming response. */
  static ObjectNode message(String id, String model, int inputTokens, ResponsePlan plan) {
    ObjectNode message = header(id, model);
    var content = message.putArray("content");
    plan.blocks().forEach(block -> content.add(block.toJson()));
    message.put("stop_reason", plan.stopReason());
    message.putNull("stop_sequence");
    message.set("usage", usage(inputTokens, plan.outputTokens()));
    return message;
  }

  /** The payload of {@code message_start}: empty content, no stop reason, one output token. */
  static ObjectNode start(String id, String model, int inputTokens) {
    ObjectNode message = header(id, model);
    message.putArray("content");
    message.putNull("stop_reason");
    message.putNull("stop_sequence");
    message.set("usage", usage(inputTokens, 1));
    ObjectNode event = event("message_start");
    event.set("message", message);
    return event;
  }

  /** The payload of {@code message_delta}. */
  static ObjectNode delta(ResponsePlan plan) {
    ObjectNode event = event("message_delta");
    ObjectNode delta = event.putObject("delta");
    delta.put("stop_reason", plan.stopReason());
    delta.putNull("stop_sequence");
    event.putObject("usage").put("output_tokens", plan.outputTokens());
    return event;
  }

  /** The {@code content_block} of {@code content_block_start}: the block with empty content. */
  static ObjectNode emptyBlock(AnswerBlock block) {
    return switch (block) {
      case AnswerBlock.Text text -> new AnswerBlock.Text("").toJson();
      case AnswerBlock.Thinking thinking -> new AnswerBlock.Thinking("", "").toJson();
      case AnswerBlock.ToolUse tool -> new AnswerBlock.ToolUse(tool.id(), tool.name(), Json.MAPPER.createObjectNode())
          .toJson();
    };
  }

  static ObjectNode event(String type) {
    ObjectNode event = Json.MAPPER.createObjectNode();
    event.put("type", type);
    return event;
  }

  private static ObjectNode header(String id, String model) {
    ObjectNode message = Json.MAPPER.createObjectNode();
    message.put("id", id);
    message.put("type", "message");
    message.put("role", "assistant");
    message.put("model", model);
    return message;
  }

  private static ObjectNode usage(int inputTokens, int outputTokens) {
    ObjectNode usage = Json.MAPPER.createObjectNode();
    usage.put("input_tokens", inputTokens);
    usage.put("cache_creation_input_tokens", 0);
    usage.put("cache_read_input_tokens", 0);
    usage.put("output_tokens", outputTokens);
    return usage;
  }
}
