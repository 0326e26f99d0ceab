package dev.levee.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Reads request content: a string or an array of content blocks, as the Messages API accepts. */
final class Blocks {

  private Blocks() {}

  /** The content blocks of a message's {@code content} (a string becomes one text block). */
  static List<JsonNode> of(JsonNode content) {
    List<JsonNode> blocks = new ArrayList<>();
    if (content == null) {
      return blocks;
    }
    if (content.isTextual()) {
      ObjectNode text = Json.MAPPER.createObjectNode();
      text.put("type", "text");
      text.put("text", content.asText());
      blocks.add(text);
    } else if (content.isArray()) {
      content.forEach(blocks::add);
    }
    return blocks;
  }

  /**
   * A canonical rendering of content for hashing: the same meaning gives the same string whether
   * sent as a string or as blocks; {@code cache_control} and signatures do not count.
   */
  static String render(JsonNode content) {
    StringBuilder out = new StringBuilder();
    for (JsonNode block : of(content)) {
      String type = block.path("type").asText("");
      switch (type) {
        case "text" -> out.append("text:").append(block.path("text").asText(""));
        case "thinking" -> out.append("thinking:").append(block.path("thinking").asText(""));
        case "tool_use" -> out.append("tool_use:").append(block.path("name").asText(""))
            .append(':').append(Json.string(block.path("input")));
        case "tool_result" -> out.append("tool_result:").append(block.path("tool_use_id").asText(""))
            .append(':').append(render(block.get("content")));
        default -> {
          ObjectNode copy = block.isObject() ? ((ObjectNode) block).deepCopy() : Json.MAPPER.createObjectNode();
          copy.remove("cache_control");
          out.append(type).append(':').append(Json.string(copy));
        }
      }
      out.append('\n');
    }
    return out.toString();
  }

  /** Whether the content holds a {@code tool_result} block. */
  static boolean hasToolResult(JsonNode content) {
    return of(content).stream().anyMatch(b -> "tool_result".equals(b.path("type").asText()));
  }

  /**
   * The number of words in every string value of the tree but a {@code type} (the emulator's token
   * estimate). A block's type is structure, not words: as with the API, content sent as one text
   * block counts as the same content sent as a string, and a prefilled partial answer counts the
   * words it was answered with.
   */
  static int words(JsonNode node) {
    if (node == null) {
      return 0;
    }
    if (node.isTextual()) {
      return Words.count(node.asText());
    }
    int words = 0;
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        words += field.getKey().equals("type") ? 0 : words(field.getValue());
      }
    } else {
      for (JsonNode child : node) {
        words += words(child);
      }
    }
    return words;
  }
}
