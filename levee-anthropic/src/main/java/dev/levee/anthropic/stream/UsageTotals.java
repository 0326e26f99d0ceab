package dev.levee.anthropic.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.SseEvent;
import java.util.HashMap;
import java.util.Map;

/**
 * Token usage summed across the attempts of one client stream, as the upstream reported it: each
 * attempt's last known figure of every integral usage field (a broken attempt's output tokens are
 * only known from its {@code message_start}), added up. Not thread-safe.
 */
final class UsageTotals {

  private Map<String, Long> banked; // finished attempts; null until one broke (most streams never do)
  private final Map<String, Long> current = new HashMap<>(8); // the attempt now streaming

  /** Takes the {@code usage} object of a {@code message_start} or {@code message_delta}. */
  void read(JsonNode usage) {
    usage.properties().forEach(field -> {
      if (field.getValue().isIntegralNumber()) {
        current.merge(field.getKey(), field.getValue().asLong(), Math::max);
      }
    });
  }

  /** The current attempt ended (broke): its figures are kept and a new attempt starts from zero. */
  void bank() {
    if (banked == null) {
      banked = new HashMap<>(8);
    }
    current.forEach((k, v) -> banked.merge(k, v, Long::sum));
    current.clear();
  }

  /** The final {@code message_delta} with its usage summed over every attempt; as it came when there was one. */
  SseEvent summed(SseEvent messageDelta, JsonNode data) {
    if (banked == null || banked.isEmpty()) {
      return messageDelta;
    }
    ObjectNode copy = ((ObjectNode) data).deepCopy();
    ObjectNode usage = copy.withObjectProperty("usage");
    Map<String, Long> total = new HashMap<>(banked);
    current.forEach((k, v) -> total.merge(k, v, Long::sum));
    total.forEach(usage::put);
    return new SseEvent("message_delta", Json.string(copy), copy);
  }
}
