package dev.levee.anthropic.stream;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.SseEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Builds Messages API stream events, and replays what a client receives into the message it sees. */
final class Events {

  private Events() {}

  static SseEvent messageStart(String id, int inputTokens) {
    return new SseEvent("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"" + id
        + "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,"
        + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":" + inputTokens + ",\"output_tokens\":1}}}");
  }

  /** A {@code message_start} of {@code model} whose {@code usage} is the JSON object {@code usage}. */
  static SseEvent messageStart(String id, String model, String usage) {
    return new SseEvent("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"" + id
        + "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"" + model + "\",\"content\":[],"
        + "\"stop_reason\":null,\"stop_sequence\":null,\"usage\":" + usage + "}}");
  }

  static SseEvent textStart(int index) {
    return new SseEvent("content_block_start",
        "{\"type\":\"content_block_start\",\"index\":" + index + ",\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
  }

  static SseEvent thinkingStart(int index) {
    return new SseEvent("content_block_start", "{\"type\":\"content_block_start\",\"index\":" + index
        + ",\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}");
  }

  static SseEvent toolStart(int index, String id, String name) {
    return new SseEvent("content_block_start", "{\"type\":\"content_block_start\",\"index\":" + index
        + ",\"content_block\":{\"type\":\"tool_use\",\"id\":\"" + id + "\",\"name\":\"" + name + "\",\"input\":{}}}");
  }

  static SseEvent text(int index, String text) {
    return delta(index, "{\"type\":\"text_delta\",\"text\":" + Json.string(text) + "}");
  }

  static SseEvent thinking(int index, String text) {
    return delta(index, "{\"type\":\"thinking_delta\",\"thinking\":" + Json.string(text) + "}");
  }

  static SseEvent signature(int index, String sig) {
    return delta(index, "{\"type\":\"signature_delta\",\"signature\":" + Json.string(sig) + "}");
  }

  static SseEvent json(int index, String partial) {
    return delta(index, "{\"type\":\"input_json_delta\",\"partial_json\":" + Json.string(partial) + "}");
  }

  static SseEvent delta(int index, String delta) {
    return new SseEvent("content_block_delta",
        "{\"type\":\"content_block_delta\",\"index\":" + index + ",\"delta\":" + delta + "}");
  }

  static SseEvent stop(int index) {
    return new SseEvent("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + index + "}");
  }

  static SseEvent messageDelta(String stopReason, int outputTokens) {
    return new SseEvent("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"" + stopReason
        + "\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":" + outputTokens + "}}");
  }

  static SseEvent messageStop() {
    return new SseEvent("message_stop", "{\"type\":\"message_stop\"}");
  }

  static SseEvent ping() {
    return new SseEvent("ping", "{\"type\": \"ping\"}");
  }

  /** The message a client assembles, checking the stream's structure as it goes. */
  static final class Client {
    final List<SseEvent> received = new ArrayList<>();
    final Map<Integer, StringBuilder> text = new TreeMap<>();
    final Map<Integer, String> types = new TreeMap<>();
    final Map<Integer, StringBuilder> json = new TreeMap<>();
    final Map<Integer, String> signatures = new TreeMap<>();
    int starts;
    int stops;
    String id;
    String stopReason;
    JsonNode usage;
    Integer open;

    void receive(List<SseEvent> events) {
      events.forEach(this::receive);
    }

    void receive(SseEvent event) {
      received.add(event);
      JsonNode d = Json.tryParse(event.data());
      switch (event.event()) {
        case "message_start" -> {
          starts++;
          id = d.path("message").path("id").asText();
          usage = d.path("message").path("usage");
        }
        case "content_block_start" -> {
          int i = d.path("index").asInt();
          if (open != null) throw new AssertionError("block " + i + " started while " + open + " is open");
          if (i != types.size()) throw new AssertionError("block index " + i + " out of order; expected " + types.size());
          open = i;
          types.put(i, d.path("content_block").path("type").asText());
          text.put(i, new StringBuilder());
          json.put(i, new StringBuilder());
        }
        case "content_block_delta" -> {
          int i = d.path("index").asInt();
          if (open == null || open != i) throw new AssertionError("delta for block " + i + " while open is " + open);
          JsonNode delta = d.path("delta");
          switch (delta.path("type").asText()) {
            case "text_delta" -> text.get(i).append(delta.path("text").asText());
            case "thinking_delta" -> text.get(i).append(delta.path("thinking").asText());
            case "signature_delta" -> signatures.put(i, delta.path("signature").asText());
            case "input_json_delta" -> json.get(i).append(delta.path("partial_json").asText());
            default -> { }
          }
        }
        case "content_block_stop" -> {
          int i = d.path("index").asInt();
          if (open == null || open != i) throw new AssertionError("stop for block " + i + " while open is " + open);
          open = null;
        }
        case "message_delta" -> {
          if (open != null) throw new AssertionError("message_delta while block " + open + " is open");
          stopReason = d.path("delta").path("stop_reason").asText();
          usage = d.path("usage");
        }
        case "message_stop" -> stops++;
        default -> { }
      }
    }

    String text(int index) {
      return text.get(index).toString();
    }
  }
}
