package dev.levee.gateway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RetryAfter;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.sse.SseWriter;
import dev.levee.gateway.cache.SseReplay;
import dev.levee.gateway.cache.StaticAnswer;
import dev.levee.gateway.config.Disclosure;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Answers Levee gives without an upstream: cached answers (JSON, or replayed as SSE for a
 * streaming request), static answers (T3 fail-open) and fail-closed refusals that echo the
 * client's input back so nothing typed is lost. With {@code disclosure: inline} a cached or
 * static answer ends with a short note saying so.
 */
final class LocalAnswers {

  private final RandomGenerator random;

  LocalAnswers(RandomGenerator random) {
    this.random = random;
  }

  /** Serves a cached message as the request asked for it. */
  void cached(InboundRequest in, Admission.Ticket ticket, byte[] message, String why, ClientResponse client) {
    byte[] body = ticket.config().disclosure() == Disclosure.INLINE ? withNote(message, why) : message;
    if (in.body().stream()) {
      stream(SseReplay.events(body), client);
    } else {
      client.send(200, "application/json", body);
    }
  }

  /** T3 fail-open: the feature's static text as a well-formed message. */
  void staticText(InboundRequest in, Admission.Ticket ticket, ClientResponse client) {
    StaticAnswer answer = new StaticAnswer(ticket.config().staticText(), random);
    if (ticket.config().disclosure() == Disclosure.INLINE) {
      cached(in, ticket, answer.json(in.body().model()), "The assistant is unavailable; this is a standard reply.", client);
    } else if (in.body().stream()) {
      stream(answer.events(in.body().model()), client);
    } else {
      client.send(200, "application/json", answer.json(in.body().model()));
    }
  }

  /** T3 fail-closed: 503, retry-after, and the client's input echoed in {@code error.input}. */
  void failClosed(InboundRequest in, Duration retryAfter, ClientResponse client) {
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
    client.header("retry-after", RetryAfter.seconds(retryAfter)).header(LeveeHeaders.SHOULD_RETRY, "false");
    client.send(503, "application/json", Json.bytes(body));
  }

  private static void stream(List<SseEvent> events, ClientResponse client) {
    try {
      OutputStream body = client.startStream();
      SseWriter out = new SseWriter(body);
      for (SseEvent event : events) {
        out.write(event);
      }
      client.endStream(body);
    } catch (IOException e) {
      client.abort(e);
    }
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
