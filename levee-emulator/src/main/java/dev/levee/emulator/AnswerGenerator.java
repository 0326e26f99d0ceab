package dev.levee.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The deterministic "model": the full answer to a conversation is a function of the seed, the
 * system prompt and the messages only — never of the model name, so that a fallback model
 * continues the very same answer.
 *
 * <ul>
 *   <li>text: 30–60 words of sentences from {@link Vocabulary};
 *   <li>with non-empty {@code tools} and no {@code tool_result} in the last user message: a short
 *       text (8–15 words), then a {@code tool_use} block for the first tool;
 *   <li>with thinking enabled: a {@code thinking} block (15–30 words) first.
 * </ul>
 *
 * Each part draws from its own generator, so enabling thinking or tools does not change the text
 * of the other parts' seeds. Thread-safe (stateless).
 */
final class AnswerGenerator {

  private static final String BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

  private final long seed;

  AnswerGenerator(long seed) {
    this.seed = seed;
  }

  /** The hash that seeds the answer to {@code messages} under {@code system}. */
  long conversationHash(JsonNode system, List<JsonNode> messages) {
    StringBuilder canonical = new StringBuilder("system\n").append(Blocks.render(system));
    for (JsonNode message : messages) {
      canonical.append(message.path("role").asText("")).append('\n').append(Blocks.render(message.get("content")));
    }
    return Prng.hash(Long.toString(seed), canonical.toString());
  }

  /**
   * The complete answer to a conversation.
   *
   * @param system the request's {@code system} (string, blocks or null)
   * @param messages the conversation the answer follows
   * @param tools the request's {@code tools} (array or null)
   * @param thinking whether thinking is enabled
   */
  List<AnswerBlock> answer(JsonNode system, List<JsonNode> messages, JsonNode tools, boolean thinking) {
    long hash = conversationHash(system, messages);
    boolean toolResult = !messages.isEmpty() && Blocks.hasToolResult(messages.getLast().get("content"));
    boolean useTool = tools != null && tools.isArray() && !tools.isEmpty() && !toolResult;
    List<AnswerBlock> blocks = new ArrayList<>();
    if (thinking) {
      String thought = Vocabulary.sentences(new Prng(hash ^ 0x7468696E6BL), new Prng(hash + 1).between(15, 30));
      blocks.add(new AnswerBlock.Thinking(thought, signature(thought)));
    }
    Prng text = new Prng(hash);
    blocks.add(new AnswerBlock.Text(Vocabulary.sentences(text, useTool ? text.between(8, 15) : text.between(30, 60))));
    if (useTool) {
      JsonNode tool = tools.get(0);
      Prng input = new Prng(hash ^ 0x746F6F6CL);
      blocks.add(new AnswerBlock.ToolUse("toolu_01" + base62(input, 22), tool.path("name").asText("tool"),
          input(input, tool.path("input_schema"))));
    }
    return blocks;
  }

  /** A deterministic opaque signature for a thinking text, shaped like the API's (base64). */
  static String signature(String thinking) {
    return Base64.getEncoder().encodeToString(Prng.sha256("signature\0" + thinking));
  }

  static String base62(Prng random, int length) {
    StringBuilder id = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      id.append(BASE62.charAt(random.nextInt(BASE62.length())));
    }
    return id.toString();
  }

  /**
   * A tool input following the top-level {@code properties} of the schema (first five; strings,
   * integers, numbers, booleans, arrays of strings), or {@code query}/{@code limit}/{@code exact}
   * when the schema names none.
   */
  private static ObjectNode input(Prng random, JsonNode schema) {
    ObjectNode input = Json.MAPPER.createObjectNode();
    Iterator<Map.Entry<String, JsonNode>> properties = schema.path("properties").properties().iterator();
    int fields = 0;
    while (properties.hasNext() && fields < 5) {
      Map.Entry<String, JsonNode> property = properties.next();
      switch (property.getValue().path("type").asText("string")) {
        case "integer" -> input.put(property.getKey(), random.between(1, 20));
        case "number" -> input.put(property.getKey(), BigDecimal.valueOf(random.between(1, 999), 1));
        case "boolean" -> input.put(property.getKey(), random.nextInt(2) == 0);
        case "array" -> {
          var array = input.putArray(property.getKey());
          for (int i = random.between(1, 3); i > 0; i--) {
            array.add(Vocabulary.pick(random));
          }
        }
        default -> input.put(property.getKey(), Vocabulary.phrase(random, random.between(1, 4)));
      }
      fields++;
    }
    if (fields == 0) {
      input.put("query", Vocabulary.phrase(random, random.between(2, 4)));
      input.put("limit", random.between(1, 20));
      input.put("exact", random.nextInt(2) == 0);
    }
    return input;
  }
}
