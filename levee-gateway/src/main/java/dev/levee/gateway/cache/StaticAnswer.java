package dev.levee.gateway.cache;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.SseEvent;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The answer of a fail-open feature at T3: a well-formed assistant message carrying the
 * feature's configured static text, with no upstream call.
 *
 * <p>Shape (as the Messages API answers): a fresh {@code msg_} id, {@code "type": "message"},
 * {@code "role": "assistant"}, the requested model, one text block, {@code "stop_reason":
 * "end_turn"}, {@code "stop_sequence": null}, and zero usage ({@code input_tokens}, {@code
 * output_tokens} and both cache counters 0: nothing was generated or billed). The streaming form
 * is the same message replayed by {@link SseReplay}.
 *
 * <p>Immutable; thread-safe when its {@link RandomGenerator} is (ids only).
 */
public final class StaticAnswer {

  private static final char[] BASE62 =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
  private static final int ID_LENGTH = 24;

  private final String text;
  private final RandomGenerator random;

  /**
   * @param text the static text, e.g. "Suggestions are taking a break; try again in a few minutes."
   * @param random where message ids come from
   */
  public StaticAnswer(String text, RandomGenerator random) {
    this.text = Objects.requireNonNull(text, "text");
    this.random = Objects.requireNonNull(random, "random");
  }

  public String text() {
    return text;
  }

  /** The message as JSON bytes, for a non-streaming request for {@code model}. */
  public byte[] json(String model) {
    return Json.bytes(message(model));
  }

  /** The message as SSE events, for a streaming request for {@code model}. */
  public List<SseEvent> events(String model) {
    return SseReplay.events(message(model));
  }

  private ObjectNode message(String model) {
    Objects.requireNonNull(model, "model");
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    ObjectNode message = nodes.objectNode()
        .put("id", newId())
        .put("type", "message")
        .put("role", "assistant")
        .put("model", model);
    message.putArray("content").addObject().put("type", "text").put("text", text);
    message.put("stop_reason", "end_turn");
    message.putNull("stop_sequence");
    message.putObject("usage")
        .put("input_tokens", 0)
        .put("cache_creation_input_tokens", 0)
        .put("cache_read_input_tokens", 0)
        .put("output_tokens", 0);
    return message;
  }

  private String newId() {
    char[] id = new char[ID_LENGTH];
    for (int i = 0; i < ID_LENGTH; i++) {
      id[i] = BASE62[random.nextInt(BASE62.length)];
    }
    return "msg_" + new String(id);
  }
}
