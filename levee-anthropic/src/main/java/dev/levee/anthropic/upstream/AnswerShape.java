package dev.levee.anthropic.upstream;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.util.Optional;

/**
 * What a 200 JSON answer of an endpoint must look like before it is relayed as a success. A body
 * that is cut short, not JSON, or not the promised shape is the upstream's failure (a server
 * error: retried, next target, counted by the breaker), never a success the client's SDK then
 * fails to parse (issue 9, item 3).
 *
 * <p>The checks are the least every client relies on, so that a faithful but newer API still
 * passes: a message (the Anthropic "Messages" reference) is an object with {@code "type":
 * "message"}, a {@code content} array of objects with a {@code type}, and a {@code usage} object;
 * a token count is an object with a numeric {@code input_tokens}. Unknown fields pass.
 */
public enum AnswerShape {

  /** {@code POST /v1/messages}. */
  MESSAGE {
    @Override
    Optional<String> problemOf(JsonNode root) {
      if (!"message".equals(root.path("type").asText(null))) {
        return Optional.of("its type is not \"message\"");
      }
      JsonNode content = root.get("content");
      if (content == null || !content.isArray()) {
        return Optional.of("it has no content array");
      }
      for (JsonNode block : content) {
        if (!block.isObject() || !block.path("type").isTextual()) {
          return Optional.of("a content block has no type");
        }
      }
      JsonNode usage = root.get("usage");
      if (usage == null || !usage.isObject()) {
        return Optional.of("it has no usage object");
      }
      return Optional.empty();
    }
  },

  /** {@code POST /v1/messages/count_tokens}. */
  TOKEN_COUNT {
    @Override
    Optional<String> problemOf(JsonNode root) {
      return root.path("input_tokens").isNumber() ? Optional.empty() : Optional.of("it has no numeric input_tokens");
    }
  },

  /** Any other endpoint: a JSON object. */
  OBJECT {
    @Override
    Optional<String> problemOf(JsonNode root) {
      return Optional.empty();
    }
  };

  /** The shape a 200 answer to {@code path} must have. */
  public static AnswerShape forPath(String path) {
    return switch (path) {
      case "/v1/messages" -> MESSAGE;
      case "/v1/messages/count_tokens" -> TOKEN_COUNT;
      default -> OBJECT;
    };
  }

  /**
   * What is wrong with {@code body} as this shape, in a few words for logs and error messages, or
   * empty when it is fine.
   */
  public Optional<String> problem(byte[] body) {
    if (body == null || body.length == 0) {
      return Optional.of("the body is empty");
    }
    JsonNode root = Json.tryParse(body);
    if (root == null) {
      return Optional.of("the body is not complete JSON");
    }
    if (!root.isObject()) {
      return Optional.of("the body is not a JSON object");
    }
    return problemOf(root);
  }

  abstract Optional<String> problemOf(JsonNode root);
}
