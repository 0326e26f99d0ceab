package dev.levee.gateway.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the {@link SemanticCache} compares: the text of the request's last user turn, within a
 * partition that must match exactly.
 *
 * <p>The partition is the tenant, the model, and the <em>context</em>: a {@link CacheKey}
 * digest of the whole request with the last user turn's content blanked out. So only requests
 * that differ in nothing but the wording of their last question are compared — a paraphrase
 * under another system prompt, other tools, another history or other sampling settings never
 * matches (issue 4 says "same tenant and model only"; Levee adds the context, because a
 * paraphrase asked under "answer in French" must not get the English answer).
 *
 * <p>A request qualifies when its last message is a user turn whose content is a string or
 * only {@code text} blocks, with at most {@value #MAX_TEXT_CHARS} characters of text (images,
 * documents and tool results are not compared by meaning; long texts are not questions).
 *
 * @param tenant as {@link CacheKey#tenantOf}
 * @param model the model or alias
 * @param context digest of everything but the last user turn's content
 * @param text the last user turn's text (text blocks joined by a newline)
 */
public record SemanticQuery(String tenant, String model, String context, String text) {

  /** The longest last-turn text that is compared by meaning, in chars. */
  public static final int MAX_TEXT_CHARS = 2000;

  private static final String BLANK = "\u0000levee:semantic-query\u0000";

  public SemanticQuery {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(text, "text");
  }

  /**
   * The query of a request body for {@code model}, or empty when the request does not qualify.
   *
   * @param headers the client's request headers (tenant, {@code anthropic-beta}…)
   */
  public static Optional<SemanticQuery> of(JsonNode body, String model, Map<String, List<String>> headers) {
    if (body == null || !body.isObject() || !body.path("messages").isArray() || body.path("messages").isEmpty()) {
      return Optional.empty();
    }
    ArrayNode messages = (ArrayNode) body.get("messages");
    JsonNode last = messages.get(messages.size() - 1);
    if (!"user".equals(last.path("role").textValue())) {
      return Optional.empty();
    }
    String text = textOf(last.path("content"));
    if (text == null || text.isBlank() || text.length() > MAX_TEXT_CHARS) {
      return Optional.empty();
    }
    ObjectNode blanked = ((ObjectNode) body).deepCopy();
    ObjectNode lastCopy = (ObjectNode) ((ArrayNode) blanked.get("messages")).get(messages.size() - 1);
    lastCopy.put("content", BLANK);
    CacheKey context = CacheKey.of(blanked, model, headers);
    return Optional.of(new SemanticQuery(context.tenant(), model, context.digest(), text));
  }

  private static String textOf(JsonNode content) {
    if (content.isTextual()) {
      return content.textValue();
    }
    if (!content.isArray() || content.isEmpty()) {
      return null;
    }
    StringBuilder text = new StringBuilder();
    for (JsonNode block : content) {
      if (!"text".equals(block.path("type").textValue()) || !block.path("text").isTextual()) {
        return null;
      }
      if (!text.isEmpty()) {
        text.append('\n');
      }
      text.append(block.get("text").textValue());
    }
    return text.toString();
  }

  @Override
  public String toString() {
    return "SemanticQuery[" + model + ", context " + context.substring(0, Math.min(12, context.length())) + "…, "
        + text.length() + " chars]";
  }
}
