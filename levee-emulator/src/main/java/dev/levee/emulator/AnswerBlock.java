package dev.levee.emulator;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;

/** One content block of an emulated answer, in the Messages API's three output kinds we emit. */
sealed interface AnswerBlock {

  /** This block as a complete {@code content} element of a message. */
  ObjectNode toJson();

  /** A {@code text} block. */
  record Text(String text) implements AnswerBlock {
    @Override
    public ObjectNode toJson() {
      ObjectNode node = Json.MAPPER.createObjectNode();
      node.put("type", "text");
      node.put("text", text);
      return node;
    }
  }

  /** A {@code thinking} block with its {@code signature}. */
  record Thinking(String thinking, String signature) implements AnswerBlock {
    @Override
    public ObjectNode toJson() {
      ObjectNode node = Json.MAPPER.createObjectNode();
      node.put("type", "thinking");
      node.put("thinking", thinking);
      node.put("signature", signature);
      return node;
    }
  }

  /** A {@code tool_use} block. */
  record ToolUse(String id, String name, ObjectNode input) implements AnswerBlock {
    @Override
    public ObjectNode toJson() {
      ObjectNode node = Json.MAPPER.createObjectNode();
      node.put("type", "tool_use");
      node.put("id", id);
      node.put("name", name);
      node.set("input", input.deepCopy());
      return node;
    }
  }
}
