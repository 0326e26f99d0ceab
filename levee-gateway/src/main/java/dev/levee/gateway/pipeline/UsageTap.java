package dev.levee.gateway.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.message.TokenUsage;

/**
 * Reads a relayed stream's token usage for metrics and cost: the {@code usage} of its {@code
 * message_start} and of its {@code message_delta} events (the last one carries the totals, summed
 * over recovered attempts). Only those events are read, from the tree the splicer already parsed. Not thread-safe: one per stream.
 */
final class UsageTap {

  private TokenUsage usage = TokenUsage.NONE;

  void accept(SseEvent event) {
    String name = event.event();
    if ("message_start".equals(name)) {
      usage = usage.max(TokenUsage.of(parse(event).path("message").path("usage")));
    } else if ("message_delta".equals(name)) {
      usage = usage.max(TokenUsage.of(parse(event).path("usage")));
    }
  }

  TokenUsage usage() {
    return usage;
  }

  /** The event's tree, parsed once and shared with the splicer and the assembler. */
  private static JsonNode parse(SseEvent event) {
    JsonNode tree = event.json();
    return tree != null ? tree : Json.MAPPER.missingNode(); // usage is best effort: a malformed event is the relay's business
  }
}
