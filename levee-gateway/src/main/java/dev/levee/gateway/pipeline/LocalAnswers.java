package dev.levee.gateway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.gateway.cache.SseReplay;
import dev.levee.gateway.cache.StaticAnswer;
import dev.levee.gateway.config.Disclosure;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The bodies of answers Levee gives without an upstream: cached answers (JSON, or replayed as
 * SSE for a streaming request), static answers (T3 fail-open) and fail-closed refusals that echo
 * the client's input back so nothing typed is lost. With {@code disclosure: inline} a cached or
 * static answer ends with a short note saying so. Thread-safe.
 */
final class LocalAnswers {

  /** A message for the client: {@code json} for a JSON request, else {@code events}. */
  record Message(byte[] json, List<SseEvent> events) {}

  private final RandomGenerator random;

  LocalAnswers(RandomGenerator random) {
    this.random = random;
  }

  /** A cached message as the request asked for it; {@code why} is the inline note. */
  Message cached(InboundRequest in, byte[] message, String why) {
    byte[] body = in.config().disclosure() == Disclosure.INLINE ? withNote(message, why) : message;
    return in.stream() ? new Message(null, SseReplay.events(body)) : new Message(body, null);
  }

  /** T3 fail-open: the feature's static text as a well-formed message. */
  Message staticText(InboundRequest in) {
    StaticAnswer answer = new StaticAnswer(in.config().staticText(), random);
    String model = in.body().model();
    if (in.config().disclosure() == Disclosure.INLINE) {
      return cached(in, answer.json(model), "The assistant is unavailable; this is a standard reply.");
    }
    return in.stream() ? new Message(null, answer.events(model)) : new Message(answer.json(model), null);
  }

  /** T3 fail-closed: the 503 body, with the client's {@code system} and {@code messages} in {@code error.input}. */
  static byte[] failClosed(InboundRequest in) {
    ApiError error = new ApiError(503, "overloaded_error", "This feature is paused while the model is "
        + "unavailable; nothing was sent. Your input is returned in error.input so that nothing is lost.");
    ObjectNode body = error.toJson(in.id());
    JsonNode input = Json.tryParse(in.body().body());
    ObjectNode echo = ((ObjectNode) body.get("error")).putObject("input");
    if (input != null) {
      for (String field : List.of("system", "messages")) {
        if (input.has(field)) {
          echo.set(field, input.get(field));
        }
      }
    }
    return Json.bytes(body);
  }

  /** The message with a final text block saying how it was served. */
  static byte[] withNote(byte[] message, String why) {
    JsonNode root = Json.tryParse(message);
    if (root == null || !root.path("content").isArray() || "tool_use".equals(root.path("stop_reason").asText())) {
      return message; // a note after a tool call would break the client's tool loop
    }
    ObjectNode copy = (ObjectNode) root.deepCopy();
    ((ArrayNode) copy.get("content")).addObject().put("type", "text").put("text", "\n\n[" + why + "]");
    return Json.bytes(copy);
  }
}
