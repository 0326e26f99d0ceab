package dev.levee.anthropic.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.EventFields;
import dev.levee.anthropic.sse.SseEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the finished message a stream carried, as the Messages API would have returned it as
 * JSON: what the gateway caches for a streamed answer. Feed it the events the client received,
 * in order; {@link #message()} is non-null only once {@code message_stop} arrived. Text and
 * thinking accumulate in builders (linear in the answer's size). Not thread-safe.
 */
public final class MessageAssembler {

  private ObjectNode message;
  private final List<ObjectNode> blocks = new ArrayList<>();
  private final List<StringBuilder> text = new ArrayList<>(); // text, thinking, or tool input JSON
  private boolean complete;

  /** Takes one client event; events of unknown types are ignored. */
  public void accept(SseEvent event) {
    switch (EventType.of(event.event())) {
      case MESSAGE_START -> {
        JsonNode data = event.json(); // parsed once per event, shared with the splicer
        if (data != null) {
          message = ((ObjectNode) data.path("message")).deepCopy();
        }
      }
      case CONTENT_BLOCK_START -> {
        JsonNode data = event.json();
        if (data != null) {
          int index = data.path("index").asInt();
          while (blocks.size() <= index) {
            blocks.add(null);
            text.add(new StringBuilder());
          }
          blocks.set(index, ((ObjectNode) data.path("content_block")).deepCopy());
        }
      }
      case CONTENT_BLOCK_DELTA -> {
        EventFields delta = event.fields(); // read once per event, shared with the splicer
        if (delta != null) {
          delta(delta.index(), delta);
        }
      }
      case MESSAGE_DELTA -> {
        JsonNode data = event.json();
        if (data != null && message != null) {
          data.path("delta").properties().forEach(f -> message.set(f.getKey(), f.getValue()));
          ObjectNode usage = message.withObjectProperty("usage");
          data.path("usage").properties().forEach(f -> usage.set(f.getKey(), f.getValue()));
        }
      }
      case MESSAGE_STOP -> complete = message != null && event.fields() != null; // read once, by the splicer
      default -> { }
    }
  }

  private void delta(int index, EventFields delta) {
    if (index < 0 || index >= blocks.size() || blocks.get(index) == null) {
      return;
    }
    ObjectNode block = blocks.get(index);
    switch (delta.deltaType()) {
      case "text_delta" -> text.get(index).append(delta.text());
      case "thinking_delta" -> text.get(index).append(delta.thinking());
      case "input_json_delta" -> text.get(index).append(delta.partialJson());
      case "signature_delta" -> block.put("signature", delta.signature());
      case "citations_delta" -> block.withArray("citations").add(delta.citation());
      default -> { }
    }
  }

  /** The finished message as JSON bytes, or null when the stream did not finish. */
  public byte[] message() {
    if (!complete) {
      return null;
    }
    ObjectNode out = message.deepCopy();
    ArrayNode content = out.putArray("content");
    for (int i = 0; i < blocks.size(); i++) {
      ObjectNode block = blocks.get(i);
      if (block == null) {
        continue;
      }
      ObjectNode b = block.deepCopy();
      String accumulated = text.get(i).toString();
      switch (b.path("type").asText()) {
        case "text" -> b.put("text", accumulated);
        case "thinking" -> b.put("thinking", accumulated);
        case "tool_use", "server_tool_use", "mcp_tool_use" -> {
          if (!accumulated.isEmpty()) {
            JsonNode input = Json.tryParse(accumulated);
            if (input == null) {
              return null; // never cache a tool call whose input does not parse
            }
            b.set("input", input);
          }
        }
        default -> { }
      }
      content.add(b);
    }
    return Json.bytes(out);
  }
}
