package dev.levee.anthropic.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.FrameFields;
import dev.levee.anthropic.sse.SseEvent;
import java.util.HashMap;
import java.util.Map;

/**
 * Token usage summed across the attempts of one client stream, as the upstream reported it: each
 * attempt's last known figure of every integral usage field (a broken attempt's output tokens are
 * only known from its {@code message_start}), added up — except that a broken attempt's output
 * tokens are raised to what the content the client received from it cost, counted high (see
 * {@link Transcript#outputTokensCountedHigh()}). Not thread-safe.
 */
final class UsageTotals {

  private static final String OUTPUT = "output_tokens";

  private final long maxTokens;
  private Map<String, Long> banked; // finished attempts; null until one broke (most streams never do)
  private final Map<String, Long> current = new HashMap<>(8); // the attempt now streaming

  /**
   * @param maxTokens the {@code max_tokens} the stream was asked for, which its output tokens never
   *     exceed (a count made high is lowered to it); -1 when unknown
   */
  UsageTotals(long maxTokens) {
    this.maxTokens = maxTokens;
  }

  /** Takes the integral members of the {@code usage} of a {@code message_start} or {@code message_delta}. */
  void read(FrameFields usage) {
    for (int i = 0; i < usage.usageCounts(); i++) {
      current.merge(usage.usageName(i), usage.usageCount(i), Math::max);
    }
  }

  /**
   * The output tokens of every attempt so far as reported, or {@code delivered} when that is more:
   * a broken attempt reports only its {@code message_start}'s figure (1 from the API), so the
   * content the client received is the better count. Never more than {@code max_tokens}: no
   * upstream answer outgrows it, so a count above it is a count made too high.
   */
  long outputTokens(long delivered) {
    long reported = current.getOrDefault(OUTPUT, 0L) + (banked == null ? 0 : banked.getOrDefault(OUTPUT, 0L));
    long spent = Math.max(reported, delivered);
    return maxTokens > 0 ? Math.min(maxTokens, spent) : spent;
  }

  /**
   * The current attempt ended (broke): its figures are kept, its output tokens raised to {@code
   * delivered} (see {@link #outputTokens}), and a new attempt starts from zero.
   *
   * @param delivered the output tokens of the content the client has, counted high
   */
  void bank(long delivered) {
    long output = outputTokens(delivered);
    if (banked == null) {
      banked = new HashMap<>(8);
    }
    current.forEach((k, v) -> banked.merge(k, v, Long::sum));
    current.clear();
    banked.put(OUTPUT, output);
  }

  /**
   * The final {@code message_delta} of a stream Levee ends itself because its last break left no
   * output tokens to continue with: {@code stop_reason: max_tokens}, as an unbroken answer that
   * reached its {@code max_tokens} ends, with the usage of every attempt so far. Call after {@link
   * #bank}.
   */
  SseEvent maxTokensDelta() {
    ObjectNode data = Json.MAPPER.createObjectNode();
    data.put("type", "message_delta");
    data.putObject("delta").put("stop_reason", "max_tokens").putNull("stop_sequence");
    ObjectNode usage = data.putObject("usage");
    if (banked != null) {
      banked.forEach(usage::put);
    }
    return new SseEvent("message_delta", Json.string(data), data);
  }

  /** Whether an attempt has broken, so that a final {@code message_delta} needs its usage {@link #summed}. */
  boolean summing() {
    return banked != null;
  }

  /**
   * The final {@code message_delta} (its tree: {@code data}) with its usage summed over every
   * attempt. Only when {@link #summing()}: with one attempt the event goes as it came.
   */
  SseEvent summed(JsonNode data) {
    ObjectNode copy = ((ObjectNode) data).deepCopy();
    ObjectNode usage = copy.withObjectProperty("usage");
    Map<String, Long> total = new HashMap<>(banked);
    current.forEach((k, v) -> total.merge(k, v, Long::sum));
    total.forEach(usage::put);
    return new SseEvent("message_delta", Json.string(copy), copy);
  }
}
