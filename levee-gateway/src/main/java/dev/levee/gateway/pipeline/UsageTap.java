package dev.levee.gateway.pipeline;

import dev.levee.anthropic.message.TokenUsage;
import dev.levee.anthropic.sse.FrameFields;
import dev.levee.anthropic.sse.SseEvent;

/**
 * Reads a relayed stream's token usage for metrics and cost: the {@code usage} of its {@code
 * message_start} and of its {@code message_delta} events (the last one carries the totals, summed
 * over recovered attempts). Only those events are read, from the fields the splicer already read
 * ({@link SseEvent#frame()}). Not thread-safe: one per stream.
 */
final class UsageTap {

  private TokenUsage usage = TokenUsage.NONE;

  void accept(SseEvent event) {
    String name = event.event();
    if ("message_start".equals(name) || "message_delta".equals(name)) { // the message's usage, or the delta's
      FrameFields frame = event.frame();
      if (frame != null) { // usage is best effort: a malformed event is the relay's business
        usage = usage.max(frame.tokenUsage());
      }
    }
  }

  TokenUsage usage() {
    return usage;
  }
}
