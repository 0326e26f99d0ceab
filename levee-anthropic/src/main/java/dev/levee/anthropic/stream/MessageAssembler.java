package dev.levee.anthropic.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.EventFields;
import dev.levee.anthropic.sse.FrameFields;
import dev.levee.anthropic.sse.SseEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the finished message a stream carried, as the Messages API would have returned it as
 * JSON: what the gateway caches for a streamed answer. Feed it the events the client received,
 * in order; {@link #message()} is non-null only once {@code message_stop} arrived. Text and
 * thinking accumulate in builders (linear in the answer's size); the message's and each block's
 * start are kept as the bytes that arrived and parsed once, when the message is built (a tree
 * per stream for its whole life would cost more than the answer's text). Not thread-safe.
 */
public final class MessageAssembler {

  private byte[] start; // message_start's data
  private final List<byte[]> messageDeltas = new ArrayList<>(1);
  private final List<Block> blocks = new ArrayList<>(1);
  private boolean complete;

  /** One content block: its start as it arrived, what its deltas added. */
  private static final class Block {
    final byte[] start;
    final StringBuilder text = new StringBuilder(); // text, thinking, or tool input JSON
    ObjectNode edited; // the start parsed, once a delta set a field on it (signature, citations)

    Block(byte[] start) {
      this.start = start;
    }

    ObjectNode tree() {
      if (edited == null) {
        edited = parsed(start, "content_block");
      }
      return edited;
    }
  }

  /** Takes one client event; events of unknown types are ignored. */
  public void accept(SseEvent event) {
    switch (EventType.of(event.event())) {
      case MESSAGE_START -> start = event.dataBytes();
      case CONTENT_BLOCK_START -> {
        FrameFields frame = event.frame(); // read once per event, shared with the splicer
        if (frame != null && frame.blockIsObject()) {
          int index = frame.index();
          while (blocks.size() <= index) {
            blocks.add(null);
          }
          blocks.set(index, new Block(event.dataBytes()));
        }
      }
      case CONTENT_BLOCK_DELTA -> {
        EventFields delta = event.fields(); // read once per event, shared with the splicer
        if (delta != null) {
          delta(delta.index(), delta);
        }
      }
      case MESSAGE_DELTA -> messageDeltas.add(event.dataBytes());
      case MESSAGE_STOP -> complete = start != null && event.fields() != null; // read once, by the splicer
      default -> { }
    }
  }

  private void delta(int index, EventFields delta) {
    if (index < 0 || index >= blocks.size() || blocks.get(index) == null) {
      return;
    }
    Block block = blocks.get(index);
    switch (delta.deltaType()) {
      case "text_delta" -> block.text.append(delta.text());
      case "thinking_delta" -> block.text.append(delta.thinking());
      case "input_json_delta" -> block.text.append(delta.partialJson());
      case "signature_delta" -> {
        if (block.tree() != null) {
          block.tree().put("signature", delta.signature());
        }
      }
      case "citations_delta" -> {
        if (block.tree() != null) {
          block.tree().withArray("citations").add(delta.citation());
        }
      }
      default -> { }
    }
  }

  /** The finished message as JSON bytes, or null when the stream did not finish or its usage is not an object. */
  public byte[] message() {
    ObjectNode out = complete ? parsed(start, "message") : null;
    if (out == null || (out.has("usage") && !out.get("usage").isObject())) {
      return null; // an odd answer is not kept: summing usage into a non-object threw in stage 6
    }
    for (byte[] bytes : messageDeltas) {
      JsonNode data = Json.tryParse(bytes);
      if (data != null) {
        data.path("delta").properties().forEach(f -> out.set(f.getKey(), f.getValue()));
        ObjectNode usage = out.withObjectProperty("usage");
        data.path("usage").properties().forEach(f -> usage.set(f.getKey(), f.getValue()));
      }
    }
    ArrayNode content = out.putArray("content");
    for (Block block : blocks) {
      ObjectNode b = block == null ? null : block.tree();
      if (b == null) {
        continue;
      }
      String accumulated = block.text.toString();
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

  /** The object under {@code field} of the JSON {@code data}, a tree of its own; null when there is none. */
  private static ObjectNode parsed(byte[] data, String field) {
    JsonNode tree = data == null ? null : Json.tryParse(data);
    return tree != null && tree.path(field) instanceof ObjectNode object ? object : null;
  }
}
