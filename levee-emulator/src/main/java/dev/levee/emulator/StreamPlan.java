package dev.levee.emulator;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.SseEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Every event of a healthy stream, in the API's order: {@code message_start}, then per block
 * {@code content_block_start} (a {@code ping} after the first), its {@code content_block_delta}s
 * and {@code content_block_stop}, then {@code message_delta} and {@code message_stop}.
 *
 * <p>Deltas: text in chunks of 1–3 words, thinking in chunks of 2–5 words then one {@code
 * signature_delta}, tool input as an empty {@code input_json_delta} followed by fragments of 1–12
 * characters cut at arbitrary points. Chunking is seeded by the block's content, so it is
 * deterministic.
 *
 * @param events the events in order
 * @param deltaIndexes the positions in {@code events} of the {@code content_block_delta}s, ascending
 */
record StreamPlan(List<SseEvent> events, List<Integer> deltaIndexes) {

  /** Whether the event at {@code position} is a content delta. */
  boolean isDelta(int position) {
    return Collections.binarySearch(deltaIndexes, position) >= 0;
  }

  static StreamPlan of(String messageId, String model, int inputTokens, ResponsePlan plan) {
    List<SseEvent> events = new ArrayList<>();
    List<Integer> deltas = new ArrayList<>();
    events.add(event(MessageJson.start(messageId, model, inputTokens)));
    for (int index = 0; index < plan.blocks().size(); index++) {
      AnswerBlock block = plan.blocks().get(index);
      ObjectNode start = MessageJson.event("content_block_start");
      start.put("index", index);
      start.set("content_block", MessageJson.emptyBlock(block));
      events.add(event(start));
      if (index == 0) {
        events.add(event(MessageJson.event("ping")));
      }
      for (ObjectNode delta : deltas(block)) {
        ObjectNode event = MessageJson.event("content_block_delta");
        event.put("index", index);
        event.set("delta", delta);
        deltas.add(events.size());
        events.add(event(event));
      }
      ObjectNode stop = MessageJson.event("content_block_stop");
      stop.put("index", index);
      events.add(event(stop));
    }
    if (plan.blocks().isEmpty()) {
      events.add(event(MessageJson.event("ping")));
    }
    events.add(event(MessageJson.delta(plan)));
    events.add(event(MessageJson.event("message_stop")));
    return new StreamPlan(List.copyOf(events), List.copyOf(deltas));
  }

  /** How many content deltas {@code plan} streams in, without building the events. */
  static int deltaCount(ResponsePlan plan) {
    return plan.blocks().stream().mapToInt(block -> deltas(block).size()).sum();
  }

  /**
   * Where a fault "after {@code n} deltas" strikes: the position in {@link #events()} right after
   * the n-th delta; n is capped at the number of deltas, and with n = 0 (or no deltas at all) it is
   * where the first delta would be.
   */
  int positionAfterDeltas(int n) {
    int k = Math.min(n, deltaIndexes.size());
    if (k > 0) {
      return deltaIndexes.get(k - 1) + 1;
    }
    if (!deltaIndexes.isEmpty()) {
      return deltaIndexes.getFirst();
    }
    return events.size() - 2; // before message_delta
  }

  private static List<ObjectNode> deltas(AnswerBlock block) {
    List<ObjectNode> deltas = new ArrayList<>();
    switch (block) {
      case AnswerBlock.Text text -> {
        for (String chunk : Words.chunks(text.text(), new Prng(Prng.hash("text", text.text())), 1, 3)) {
          deltas.add(delta("text_delta", "text", chunk));
        }
      }
      case AnswerBlock.Thinking thinking -> {
        for (String chunk : Words.chunks(thinking.thinking(), new Prng(Prng.hash("thinking", thinking.thinking())),
            2, 5)) {
          deltas.add(delta("thinking_delta", "thinking", chunk));
        }
        deltas.add(delta("signature_delta", "signature", thinking.signature()));
      }
      case AnswerBlock.ToolUse tool -> {
        String json = Json.string(tool.input());
        Prng random = new Prng(Prng.hash("tool", tool.id(), json));
        deltas.add(delta("input_json_delta", "partial_json", ""));
        int from = 0;
        while (from < json.length()) {
          int to = Math.min(json.length(), from + random.between(1, 12));
          if (to < json.length() && Character.isHighSurrogate(json.charAt(to - 1))) {
            to++;
          }
          deltas.add(delta("input_json_delta", "partial_json", json.substring(from, to)));
          from = to;
        }
      }
    }
    return deltas;
  }

  private static ObjectNode delta(String type, String field, String value) {
    ObjectNode delta = Json.MAPPER.createObjectNode();
    delta.put("type", type);
    delta.put(field, value);
    return delta;
  }

  private static SseEvent event(ObjectNode payload) {
    return new SseEvent(payload.get("type").asText(), Json.string(payload));
  }
}
