package dev.levee.gateway.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.sse.SseWriter;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Replays a complete message as the Messages API would have streamed it, so a streaming client
 * can be answered from the cache (or with a {@link StaticAnswer}).
 *
 * <p>The events, as in the API's streaming reference: {@code message_start} (the message with
 * empty {@code content} and null {@code stop_reason}/{@code stop_sequence}, everything else —
 * id, model, usage, unknown fields — as stored); per content block {@code content_block_start},
 * its deltas, {@code content_block_stop}; {@code message_delta} (stop reason, stop sequence and
 * the full usage); {@code message_stop}. Block by type:
 *
 * <ul>
 *   <li>{@code text}: starts empty, then {@code text_delta}s of at most {@value #TEXT_CHUNK}
 *       characters (never splitting a surrogate pair), then one {@code citations_delta} per
 *       citation when it has any;
 *   <li>{@code tool_use}, {@code server_tool_use}, {@code mcp_tool_use}: starts with {@code
 *       "input": {}}, then the input's JSON in {@code input_json_delta}s;
 *   <li>{@code thinking}: starts empty, then {@code thinking_delta}s and one {@code
 *       signature_delta};
 *   <li>any other type ({@code redacted_thinking}, server tool results, types Levee does not
 *       know): the whole block in {@code content_block_start}, no delta — as the API streams them.
 * </ul>
 *
 * An SDK's message accumulator turns the events back into the stored message. Stateless and
 * thread-safe.
 */
public final class SseReplay {

  /** Longest text, thinking or JSON piece in one delta, in chars. */
  public static final int TEXT_CHUNK = 200;

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private SseReplay() {}

  /**
   * The events for a stored message.
   *
   * @throws IllegalArgumentException when the bytes are not a JSON message object
   */
  public static List<SseEvent> events(byte[] messageJson) {
    JsonNode message = Json.tryParse(messageJson);
    if (message == null) {
      throw new IllegalArgumentException("cached answer is not JSON");
    }
    return events(message);
  }

  /**
   * The events for a message object.
   *
   * @throws IllegalArgumentException when it is not an object with {@code "type": "message"} and a
   *     {@code content} array
   */
  public static List<SseEvent> events(JsonNode message) {
    if (!message.isObject() || !"message".equals(message.path("type").textValue())
        || !message.path("content").isArray()) {
      throw new IllegalArgumentException("not a message object with a content array");
    }
    List<SseEvent> events = new ArrayList<>();

    ObjectNode start = ((ObjectNode) message).deepCopy();
    start.set("content", NODES.arrayNode());
    start.putNull("stop_reason");
    start.putNull("stop_sequence");
    events.add(event("message_start", object("message_start").set("message", start)));

    int index = 0;
    for (JsonNode block : message.path("content")) {
      addBlock(events, index++, block);
    }

    ObjectNode delta = NODES.objectNode();
    delta.set("stop_reason", message.path("stop_reason").isMissingNode() ? NODES.nullNode() : message.get("stop_reason"));
    delta.set("stop_sequence", message.path("stop_sequence").isMissingNode() ? NODES.nullNode() : message.get("stop_sequence"));
    ObjectNode messageDelta = object("message_delta");
    messageDelta.set("delta", delta);
    messageDelta.set("usage", message.path("usage").isObject() ? message.get("usage").deepCopy() : NODES.objectNode());
    events.add(event("message_delta", messageDelta));
    events.add(event("message_stop", object("message_stop")));
    return events;
  }

  /** The events as the bytes of an SSE body ({@link SseWriter#encode} of each, in order). */
  public static byte[] encode(List<SseEvent> events) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (SseEvent event : events) {
      out.writeBytes(SseWriter.encode(event));
    }
    return out.toByteArray();
  }

  private static void addBlock(List<SseEvent> events, int index, JsonNode block) {
    String type = block.path("type").asText("");
    ObjectNode start = block.isObject() ? ((ObjectNode) block).deepCopy() : NODES.objectNode();
    List<ObjectNode> deltas = new ArrayList<>();
    switch (type) {
      case "text" -> {
        start.put("text", "");
        for (String piece : chunks(block.path("text").asText(""))) {
          deltas.add(NODES.objectNode().put("type", "text_delta").put("text", piece));
        }
        JsonNode citations = block.path("citations");
        if (citations.isArray()) {
          start.set("citations", NODES.arrayNode());
          for (JsonNode citation : citations) {
            ObjectNode delta = NODES.objectNode().put("type", "citations_delta");
            delta.set("citation", citation);
            deltas.add(delta);
          }
        }
      }
      case "tool_use", "server_tool_use", "mcp_tool_use" -> {
        start.set("input", NODES.objectNode());
        JsonNode input = block.path("input");
        String json = input.isMissingNode() ? "{}" : Json.string(input);
        for (String piece : chunks(json)) {
          deltas.add(NODES.objectNode().put("type", "input_json_delta").put("partial_json", piece));
        }
      }
      case "thinking" -> {
        start.put("thinking", "");
        start.put("signature", "");
        for (String piece : chunks(block.path("thinking").asText(""))) {
          deltas.add(NODES.objectNode().put("type", "thinking_delta").put("thinking", piece));
        }
        deltas.add(NODES.objectNode().put("type", "signature_delta").put("signature", block.path("signature").asText("")));
      }
      default -> { } // the whole block in content_block_start
    }
    ObjectNode startEvent = object("content_block_start").put("index", index);
    startEvent.set("content_block", start);
    events.add(event("content_block_start", startEvent));
    for (ObjectNode delta : deltas) {
      ObjectNode deltaEvent = object("content_block_delta").put("index", index);
      deltaEvent.set("delta", delta);
      events.add(event("content_block_delta", deltaEvent));
    }
    events.add(event("content_block_stop", object("content_block_stop").put("index", index)));
  }

  /** Pieces of at most {@link #TEXT_CHUNK} chars; none for an empty string. */
  static List<String> chunks(String text) {
    List<String> pieces = new ArrayList<>((text.length() / TEXT_CHUNK) + 1);
    int from = 0;
    while (from < text.length()) {
      int to = Math.min(text.length(), from + TEXT_CHUNK);
      if (to < text.length() && Character.isHighSurrogate(text.charAt(to - 1))) {
        to--; // keep the pair together
      }
      pieces.add(text.substring(from, to));
      from = to;
    }
    return pieces;
  }

  private static ObjectNode object(String type) {
    return NODES.objectNode().put("type", type);
  }

  private static SseEvent event(String name, ObjectNode data) {
    return new SseEvent(name, Json.string(data));
  }
}
