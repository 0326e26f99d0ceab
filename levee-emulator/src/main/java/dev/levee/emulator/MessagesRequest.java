package dev.levee.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.Utf8;
import dev.levee.anthropic.error.ApiError;
import java.util.ArrayList;
import java.util.List;

/**
 * The parts of a {@code POST /v1/messages} body the emulator reads. Every other field is accepted
 * (unless {@link FieldChecks} refuses its value, as the API does) and ignored, as the API ignores
 * nothing but the emulator needs nothing more.
 *
 * @param model the requested model name
 * @param maxTokens {@code max_tokens}
 * @param stream whether {@code "stream": true}
 * @param system {@code system} (string, blocks) or null
 * @param messages the {@code messages}
 * @param tools {@code tools} or null
 * @param thinking whether {@code thinking.type} is {@code enabled} or {@code adaptive}
 */
record MessagesRequest(String model, int maxTokens, boolean stream, JsonNode system, List<JsonNode> messages,
    JsonNode tools, boolean thinking) {

  /** The outcome of reading a body: a request or the API's 400 for it. */
  sealed interface Parsed {}

  record Valid(MessagesRequest request) implements Parsed {}

  /**
   * A refused body, with what could still be read of it for the log.
   *
   * @param model the body's {@code model} when it is a string, else null
   * @param stream whether the body said {@code "stream": true}
   */
  record Invalid(ApiError error, String model, boolean stream) implements Parsed {}

  /**
   * The beta under which the API accepts messages of role {@code system} inside the conversation
   * (sent by current Claude Code).
   */
  static final String MID_CONVERSATION_SYSTEM_BETA = "mid-conversation-system-2026-04-07";

  /**
   * Reads and minimally validates a body the way the API does: ill-formed UTF-8 (named by the byte
   * offset of its first bad sequence, as the gateway names it), malformed JSON, a missing {@code
   * model}, {@code max_tokens} or {@code messages}, an optional field the API refuses ({@link
   * FieldChecks}), a bad role, or a final assistant message ending in whitespace give a 400 {@code
   * invalid_request_error} with the API's wording.
   *
   * @param countTokens true for {@code /v1/messages/count_tokens}, whose body has no {@code
   *     max_tokens} (then 0) and refuses one that has it, or {@code stream}
   * @param betas the request's {@code anthropic-beta} values joined with {@code ,}, or null; with
   *     {@value #MID_CONVERSATION_SYSTEM_BETA}, messages of role {@code system} are accepted
   */
  static Parsed parse(byte[] body, boolean countTokens, String betas) {
    int malformed = body == null ? -1 : Utf8.firstMalformed(body, 0, body.length);
    if (malformed >= 0) { // as the gateway: Jackson skips most strings undecoded and lets overlong forms by
      return new Invalid(ApiError.invalidRequest(Utf8.refusal(body, malformed)), null, false);
    }
    JsonNode root = Json.tryParse(body);
    if (root == null) {
      return new Invalid(ApiError.invalidRequest("There was an issue with the request body: it is not valid JSON."),
          null, false);
    }
    if (!root.isObject()) {
      return new Invalid(ApiError.invalidRequest("Input should be a valid dictionary or object to extract fields from"),
          null, false);
    }
    ObjectNode object = (ObjectNode) root;
    Parsed parsed = validate(object, countTokens, hasBeta(betas, MID_CONVERSATION_SYSTEM_BETA));
    if (parsed instanceof Invalid invalid) { // the log still says which model and whether streamed
      JsonNode model = object.get("model");
      return new Invalid(invalid.error(), model != null && model.isTextual() ? model.asText() : null,
          object.path("stream").asBoolean(false));
    }
    return parsed;
  }

  private static Parsed validate(ObjectNode object, boolean countTokens, boolean systemMessages) {
    for (String field : countTokens ? List.of("model", "messages") : List.of("model", "max_tokens", "messages")) {
      if (!object.hasNonNull(field)) {
        return invalid(field + ": Field required");
      }
    }
    if (!object.get("model").isTextual()) {
      return invalid("model: Input should be a valid string");
    }
    JsonNode maxTokens = countTokens ? object.path("max_tokens") : object.get("max_tokens");
    if (!countTokens && (!maxTokens.canConvertToExactIntegral() || !maxTokens.canConvertToInt())) {
      return invalid("max_tokens: Input should be a valid integer");
    }
    if (!countTokens && maxTokens.asInt() < 1) {
      return invalid("max_tokens: Input should be greater than or equal to 1");
    }
    String refused = FieldChecks.refusal(object, countTokens);
    if (refused != null) {
      return invalid(refused);
    }
    JsonNode messagesNode = object.get("messages");
    if (!messagesNode.isArray()) {
      return invalid("messages: Input should be a valid list");
    }
    List<JsonNode> messages = new ArrayList<>();
    for (int i = 0; i < messagesNode.size(); i++) {
      JsonNode message = messagesNode.get(i);
      if (!message.isObject()) {
        return invalid("messages." + i + ": Input should be a valid dictionary");
      }
      String role = message.path("role").asText("");
      boolean known = role.equals("user") || role.equals("assistant") || systemMessages && role.equals("system");
      if (!known) {
        return invalid("messages." + i + ".role: Input should be "
            + (systemMessages ? "'user', 'assistant' or 'system'" : "'user' or 'assistant'"));
      }
      if (!message.has("content")) {
        return invalid("messages." + i + ".content: Field required");
      }
      messages.add(message);
    }
    if (messages.isEmpty()) {
      return invalid("messages: at least one message is required");
    }
    JsonNode last = messages.getLast();
    if (last.path("role").asText().equals("assistant") && endsWithWhitespace(last.get("content"))) {
      return invalid("messages: final assistant content cannot end with trailing whitespace");
    }
    String thinkingType = object.path("thinking").path("type").asText("");
    return new Valid(new MessagesRequest(object.get("model").asText(), maxTokens.asInt(),
        object.path("stream").asBoolean(false), object.get("system"), List.copyOf(messages),
        object.get("tools"), thinkingType.equals("enabled") || thinkingType.equals("adaptive")));
  }

  /** The role of the last message. */
  String lastRole() {
    return messages.getLast().path("role").asText();
  }

  /** The system prompt and the first user message: what identifies a conversation. */
  String conversationIdentity() {
    JsonNode firstUser = messages.stream().filter(m -> m.path("role").asText().equals("user")).findFirst()
        .orElse(null);
    return Blocks.render(system) + "\0" + (firstUser == null ? "" : Blocks.render(firstUser.get("content")));
  }

  /** The emulator's estimate of input tokens: the words of system, messages and tools, at least 1. */
  int inputTokens() {
    int words = Blocks.words(system) + Blocks.words(tools);
    for (JsonNode message : messages) {
      words += Blocks.words(message.get("content"));
    }
    return Math.max(1, words);
  }

  private static boolean endsWithWhitespace(JsonNode content) {
    List<JsonNode> blocks = Blocks.of(content);
    if (blocks.isEmpty() || !blocks.getLast().path("type").asText().equals("text")) {
      return false;
    }
    String text = blocks.getLast().path("text").asText("");
    return !text.isEmpty() && Character.isWhitespace(text.charAt(text.length() - 1));
  }

  private static Invalid invalid(String message) {
    return new Invalid(ApiError.invalidRequest(message), null, false);
  }

  private static boolean hasBeta(String betas, String beta) {
    if (betas == null) {
      return false;
    }
    for (String value : betas.split(",")) {
      if (value.trim().equals(beta)) {
        return true;
      }
    }
    return false;
  }
}
