package dev.levee.anthropic.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the recovery request: it asks a target to continue a partial answer, in the way that target
 * accepts:
 *
 * <ul>
 *   <li><b>prefill</b> (older models): the partial answer becomes the final assistant turn, which
 *       the model extends. Its trailing whitespace is stripped, as the API requires.
 *   <li><b>no prefill</b> (Claude 4.6 and later reject a final assistant turn with a 400): the
 *       partial answer becomes an assistant turn followed by a short user turn asking to
 *       continue exactly where it stopped, without repeating anything.
 * </ul>
 *
 * <p>Everything else in the client's request — system, tools, sampling, unknown fields — is
 * kept; only {@code model}, {@code messages} and the output budget change. A client's own prefill
 * (its request already ending in an assistant turn) is merged with the partial answer into one
 * turn. With no partial content the original request is sent as it was, but for the budget.
 *
 * <p>The budget: {@code max_tokens} is lowered by the output tokens the answer has already cost,
 * so that the partial answer and its continuation together stay within the client's {@code
 * max_tokens}, as an unbroken answer does. Extended thinking's {@code budget_tokens} must stay
 * below {@code max_tokens} (and at least 1024, the API's minimum): it is lowered to {@code
 * max_tokens - 1} when that is still 1024 or more, else {@code thinking} is removed, as a reduced
 * tier removes it, and with it the partial answer's thinking blocks, so that the turn being
 * continued holds no thinking the request does not enable. (The continuation's own thinking never
 * reaches the client anyway: the splicer drops it.)
 */
public final class RecoveryRequest {

  /** The API's least {@code thinking.budget_tokens}. */
  static final long MIN_THINKING_BUDGET = 1024;

  /** The user turn sent to targets that cannot be prefilled. */
  public static final String INSTRUCTION = "Your previous reply was cut off by a network error. Continue it exactly "
      + "where it stopped, as if there had been no interruption: do not repeat any of it, do not add a preamble "
      + "or acknowledge this message.";

  private RecoveryRequest() {}

  /**
   * @param original the client's request body
   * @param model the target's model
   * @param partial the content blocks the client already has (see {@link Transcript#content()})
   * @param prefill whether the target accepts a final assistant turn
   * @param spent the output tokens the answer has cost so far (0: {@code max_tokens} unchanged);
   *     the caller asks only while some are left, and {@code max_tokens} never goes below 1
   */
  public static byte[] build(byte[] original, String model, List<ObjectNode> partial, boolean prefill, long spent) {
    ObjectNode body;
    try {
      body = (ObjectNode) Json.MAPPER.readTree(original);
    } catch (IOException | ClassCastException | NumberFormatException e) { // NumberFormatException: 1e99999999999
      throw new UncheckedIOException(new IOException("the original request is not a JSON object", e));
    }
    body.put("model", model);
    boolean thinking = lowerBudget(body, spent);
    List<ObjectNode> content = new ArrayList<>(partial);
    if (!thinking) {
      content.removeIf(RecoveryRequest::isThinking);
    }
    if (prefill) {
      stripTrailingWhitespace(content);
    }
    if (content.isEmpty()) {
      return Json.bytes(body);
    }
    ArrayNode messages = body.withArray("messages");
    ObjectNode last = messages.isEmpty() ? null : (ObjectNode) messages.get(messages.size() - 1);
    if (last != null && "assistant".equals(last.path("role").asText())) {
      mergeInto(last, content);
    } else {
      ObjectNode assistant = messages.addObject();
      assistant.put("role", "assistant");
      ArrayNode blocks = assistant.putArray("content");
      content.forEach(blocks::add);
    }
    if (!prefill) {
      ObjectNode user = messages.addObject();
      user.put("role", "user");
      user.putArray("content").addObject().put("type", "text").put("text", INSTRUCTION);
    }
    return Json.bytes(body);
  }

  /**
   * Lowers {@code max_tokens} by {@code spent}, and the thinking budget with it (see the class doc).
   *
   * @return false when it removed {@code thinking}
   */
  private static boolean lowerBudget(ObjectNode body, long spent) {
    JsonNode max = body.get("max_tokens");
    if (spent <= 0 || max == null || !max.isIntegralNumber()) {
      return true;
    }
    long left = Math.max(1, max.asLong() - spent);
    body.put("max_tokens", left);
    JsonNode thinking = body.get("thinking");
    JsonNode budget = thinking == null ? null : thinking.get("budget_tokens");
    if (budget == null || !budget.isIntegralNumber() || budget.asLong() < left) {
      return true; // no thinking, adaptive thinking (no budget), or a budget that still fits
    }
    if (left - 1 >= MIN_THINKING_BUDGET) {
      ((ObjectNode) thinking).put("budget_tokens", left - 1);
      return true;
    }
    body.remove("thinking");
    return false;
  }

  private static boolean isThinking(ObjectNode block) {
    String type = block.path("type").asText();
    return type.equals("thinking") || type.equals("redacted_thinking");
  }

  /** Appends the partial content to the client's own prefilled assistant turn. */
  private static void mergeInto(ObjectNode assistant, List<ObjectNode> content) {
    JsonNode existing = assistant.get("content");
    ArrayNode blocks = Json.MAPPER.createArrayNode();
    if (existing != null && existing.isTextual()) {
      blocks.addObject().put("type", "text").put("text", existing.asText());
    } else if (existing != null && existing.isArray()) {
      existing.forEach(blocks::add);
    }
    int i = 0;
    if (!blocks.isEmpty() && !content.isEmpty()) {
      JsonNode tail = blocks.get(blocks.size() - 1);
      ObjectNode head = content.get(0);
      if ("text".equals(tail.path("type").asText()) && "text".equals(head.path("type").asText())) {
        ((ObjectNode) tail).put("text", tail.path("text").asText() + head.path("text").asText());
        i = 1; // the API's answer continued the client's own prefill text: one text block
      }
    }
    for (; i < content.size(); i++) {
      blocks.add(content.get(i));
    }
    assistant.set("content", blocks);
  }

  private static void stripTrailingWhitespace(List<ObjectNode> content) {
    if (content.isEmpty()) {
      return;
    }
    ObjectNode last = content.get(content.size() - 1);
    if (!"text".equals(last.path("type").asText())) {
      return;
    }
    String text = last.path("text").asText().stripTrailing();
    if (text.isEmpty()) {
      content.remove(content.size() - 1);
    } else {
      content.set(content.size() - 1, last.deepCopy().put("text", text));
    }
  }
}
