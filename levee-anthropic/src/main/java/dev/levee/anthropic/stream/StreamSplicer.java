package dev.levee.anthropic.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.SseEvent;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the events of successive upstream attempts into one stream the client can trust: one
 * {@code message_start} with the original id, consistent block indices, no text missing or
 * repeated, usage summed across attempts, one {@code message_stop}.
 *
 * <p>What the client receives, and when:
 *
 * <ul>
 *   <li>text and thinking deltas go out live;
 *   <li>a {@code content_block_stop} goes out only when the next block starts or the message
 *       ends, so a break right after a block leaves it open and a continuation can extend it;
 *   <li>from the first block of any other type ({@code tool_use}, server tools, types this
 *       version does not know) until {@code message_delta}, everything is held and released
 *       together: the client never gets a tool call with partial JSON, and a break inside one
 *       discards it and continues from the last text;
 *   <li>a continuation's {@code message_start} and its thinking blocks are dropped; its first text
 *       block extends the client's open text block, minus any overlap ({@link Overlap});
 *   <li>a content delta repeated byte for byte at the same block is counted as a suspected
 *       duplicate, and dropped when so configured (a model may genuinely repeat a chunk).
 * </ul>
 *
 * <p>Not thread-safe: one splicer per client stream.
 */
final class StreamSplicer {

  /** One block as the client has it. */
  private static final class Block {
    final int index;
    final String type;
    final JsonNode start; // the content_block of content_block_start
    final StringBuilder text = new StringBuilder(); // text, or thinking
    String signature;

    Block(int index, String type, JsonNode start) {
      this.index = index;
      this.type = type;
      this.start = start;
    }
  }

  private final List<Block> blocks = new ArrayList<>(); // every block released to the client, in order
  private Block open; // the last released block while its stop has not been sent
  private boolean started;
  private boolean messageDeltaSent;
  private boolean messageStopSent;

  private List<SseEvent> held; // non-null while holding whole blocks (see class doc)
  private List<Block> heldBlocks;

  // the current attempt
  private final Map<Integer, Integer> clientIndex = new HashMap<>();
  private final Set<Integer> dropped = new HashSet<>();
  private boolean continuation;
  private boolean wordOverlap;
  private boolean firstBlockOfAttempt = true;
  private Integer continuedIndex; // upstream index whose text extends the client's open block
  private StringBuilder overlapBuffer; // text of that block not yet checked for overlap

  // usage: the sum of finished attempts' last known figures, plus the current attempt's
  private final Map<String, Long> usageBefore = new HashMap<>();
  private final Map<String, Long> usageCurrent = new HashMap<>();

  private int lastDeltaIndex = -1; // upstream index of the last content delta, -1 after a block boundary
  private String lastDeltaData;
  private long duplicates;
  private final boolean dropDuplicates;

  StreamSplicer(boolean dropDuplicates) {
    this.dropDuplicates = dropDuplicates;
  }

  /**
   * Takes one upstream event of the current attempt; returns what to send the client now.
   *
   * @throws StreamFailureException when the event's data is not valid JSON (a malformed stream)
   */
  List<SseEvent> accept(SseEvent event) throws StreamFailureException {
    EventType type = EventType.of(event.event());
    if (type == EventType.PING) {
      return List.of(event);
    }
    if (type == EventType.UNKNOWN) {
      return held != null ? hold(event) : List.of(event);
    }
    JsonNode data = Json.tryParse(event.data());
    if (data == null || !data.isObject()) {
      throw new StreamFailureException(Failure.of(FailureKind.SERVER_ERROR, 200, "malformed_event",
          "the upstream sent an event whose data is not JSON (" + event.event() + ")"));
    }
    return switch (type) {
      case MESSAGE_START -> messageStart(event, data);
      case CONTENT_BLOCK_START -> blockStart(event, data);
      case CONTENT_BLOCK_DELTA -> blockDelta(event, data);
      case CONTENT_BLOCK_STOP -> blockStop(event, data);
      case MESSAGE_DELTA -> messageDelta(event, data);
      case MESSAGE_STOP -> messageStop(event);
      default -> List.of(event);
    };
  }

  private List<SseEvent> messageStart(SseEvent event, JsonNode data) {
    readUsage(data.path("message").path("usage"));
    if (started) {
      return List.of(); // a continuation: the client already has its message_start
    }
    started = true;
    return List.of(event);
  }

  private List<SseEvent> blockStart(SseEvent event, JsonNode data) {
    int upstream = data.path("index").asInt();
    JsonNode content = data.path("content_block");
    String type = content.path("type").asText();
    lastDeltaIndex = -1;
    if (continuation && (type.equals("thinking") || type.equals("redacted_thinking")) && !blocks.isEmpty()) {
      dropped.add(upstream); // the continuation's own reasoning: the client has its thinking already
      return List.of();
    }
    boolean first = firstBlockOfAttempt;
    firstBlockOfAttempt = false;
    List<SseEvent> out = new ArrayList<>();
    if (held != null) {
      clientIndex.put(upstream, nextIndex());
      heldBlocks.add(new Block(clientIndex.get(upstream), type, content));
      return hold(reindex(event, data, clientIndex.get(upstream)));
    }
    if (first && continuation && type.equals("text") && open != null && open.type.equals("text")) {
      clientIndex.put(upstream, open.index); // extends the client's open text block
      continuedIndex = upstream;
      overlapBuffer = new StringBuilder();
      return List.of();
    }
    int index = nextIndex();
    clientIndex.put(upstream, index);
    if (!type.equals("text") && !type.equals("thinking") && !type.equals("redacted_thinking")) {
      // hold from here to message_delta; the open block's stop waits too, so that a break in
      // the held part leaves the client's last text open for the continuation to extend
      held = new ArrayList<>();
      heldBlocks = new ArrayList<>();
      heldBlocks.add(new Block(index, type, content));
      return hold(reindex(event, data, index));
    }
    closeOpen(out);
    Block block = new Block(index, type, content);
    blocks.add(block);
    open = block;
    out.add(reindex(event, data, index));
    return out;
  }

  private List<SseEvent> blockDelta(SseEvent event, JsonNode data) {
    int upstream = data.path("index").asInt();
    if (dropped.contains(upstream)) {
      return List.of();
    }
    if (upstream == lastDeltaIndex && event.data().equals(lastDeltaData)) {
      duplicates++;
      if (dropDuplicates) {
        return List.of();
      }
    }
    lastDeltaIndex = upstream;
    lastDeltaData = event.data();
    Integer index = clientIndex.get(upstream);
    if (index == null) {
      return List.of(event); // a delta for a block that never started: relay as is
    }
    if (held != null) {
      return hold(reindex(event, data, index));
    }
    JsonNode delta = data.path("delta");
    if (overlapBuffer != null && upstream == continuedIndex && delta.path("type").asText().equals("text_delta")) {
      overlapBuffer.append(delta.path("text").asText());
      return overlapBuffer.length() >= Overlap.MAX ? resolveOverlap() : List.of();
    }
    record(open, delta);
    return List.of(reindex(event, data, index));
  }

  private List<SseEvent> blockStop(SseEvent event, JsonNode data) {
    int upstream = data.path("index").asInt();
    lastDeltaIndex = -1;
    if (dropped.contains(upstream)) {
      return List.of();
    }
    Integer index = clientIndex.get(upstream);
    if (held != null && index != null && (open == null || index != open.index)) {
      return hold(reindex(event, data, index));
    }
    return overlapBuffer != null && Integer.valueOf(upstream).equals(continuedIndex) ? resolveOverlap() : List.of();
    // the stop itself is sent when the next block starts or the message ends
  }

  private List<SseEvent> messageDelta(SseEvent event, JsonNode data) {
    readUsage(data.path("usage"));
    List<SseEvent> out = new ArrayList<>();
    if (overlapBuffer != null) {
      out.addAll(resolveOverlap());
    }
    closeOpen(out);
    if (held != null) {
      out.addAll(held);
      blocks.addAll(heldBlocks);
      held = null;
      heldBlocks = null;
    }
    messageDeltaSent = true;
    out.add(usageBefore.isEmpty() ? event : withSummedUsage(data));
    return out;
  }

  private List<SseEvent> messageStop(SseEvent event) {
    List<SseEvent> out = new ArrayList<>();
    closeOpen(out);
    messageStopSent = true;
    out.add(event);
    return out;
  }

  private List<SseEvent> hold(SseEvent event) {
    held.add(event);
    return List.of();
  }

  /** Sends the continued block's buffered text, minus what repeats the client's text. */
  private List<SseEvent> resolveOverlap() {
    String text = overlapBuffer.toString();
    overlapBuffer = null;
    String fresh = text.substring(Overlap.of(open.text, text, wordOverlap));
    if (fresh.isEmpty()) {
      return List.of();
    }
    open.text.append(fresh);
    ObjectNode delta = Json.MAPPER.createObjectNode();
    delta.put("type", "content_block_delta");
    delta.put("index", open.index);
    delta.putObject("delta").put("type", "text_delta").put("text", fresh);
    return List.of(new SseEvent("content_block_delta", Json.string(delta)));
  }

  private void closeOpen(List<SseEvent> out) {
    if (open != null) {
      out.add(stopEvent(open.index));
      open = null;
    }
  }

  private static SseEvent stopEvent(int index) {
    return new SseEvent("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + index + "}");
  }

  private static void record(Block block, JsonNode delta) {
    if (block == null) {
      return;
    }
    switch (delta.path("type").asText()) {
      case "text_delta" -> block.text.append(delta.path("text").asText());
      case "thinking_delta" -> block.text.append(delta.path("thinking").asText());
      case "signature_delta" -> block.signature = delta.path("signature").asText();
      default -> { } // citations and future delta types are relayed, not needed to resume
    }
  }

  private int nextIndex() {
    int taken = blocks.size() + (heldBlocks == null ? 0 : heldBlocks.size());
    return taken;
  }

  /** The event with its {@code index} set to {@code index}; the same object when unchanged. */
  private static SseEvent reindex(SseEvent event, JsonNode data, int index) {
    if (data.path("index").asInt() == index) {
      return event;
    }
    ObjectNode copy = ((ObjectNode) data).deepCopy();
    copy.put("index", index);
    return new SseEvent(event.event(), Json.string(copy));
  }

  private void readUsage(JsonNode usage) {
    usage.properties().forEach(field -> {
      if (field.getValue().isIntegralNumber()) {
        usageCurrent.merge(field.getKey(), field.getValue().asLong(), Math::max);
      }
    });
  }

  private SseEvent withSummedUsage(JsonNode data) {
    ObjectNode copy = ((ObjectNode) data).deepCopy();
    ObjectNode usage = copy.withObjectProperty("usage");
    Map<String, Long> total = new HashMap<>(usageBefore);
    usageCurrent.forEach((k, v) -> total.merge(k, v, Long::sum));
    total.forEach(usage::put);
    return new SseEvent("message_delta", Json.string(copy));
  }

  // --- breaks and continuations ---

  /** Whether the final {@code message_delta} was sent: only {@code message_stop} can be missing. */
  boolean messageDeltaSent() {
    return messageDeltaSent;
  }

  /** Whether {@code message_stop} was sent. */
  boolean finished() {
    return messageStopSent;
  }

  /**
   * Whether a break now can be recovered: not inside a thinking block that has no signature yet
   * (a continuation cannot extend a thinking block, and an unsigned one cannot be sent back).
   */
  boolean resumable() {
    return open == null || !open.type.equals("thinking") || open.signature != null;
  }

  /** What the client has: the content of the assistant turn a continuation must extend. */
  List<ObjectNode> partialContent() {
    List<ObjectNode> content = new ArrayList<>();
    for (Block block : blocks) {
      ObjectNode node = Json.MAPPER.createObjectNode();
      switch (block.type) {
        case "text" -> {
          if (block.text.isEmpty()) {
            continue;
          }
          node.put("type", "text").put("text", block.text.toString());
        }
        case "thinking" -> node.put("type", "thinking").put("thinking", block.text.toString())
            .put("signature", block.signature == null ? "" : block.signature);
        default -> node.setAll((ObjectNode) block.start.deepCopy()); // redacted_thinking and tool_use: as they started
      }
      content.add(node);
    }
    return content;
  }

  /**
   * Forgets the broken attempt and prepares for a continuation: held blocks are discarded, the
   * attempt's usage is banked.
   *
   * @param prefill whether the continuation prefills the partial answer (then only repeated
   *     whitespace is trimmed) or asks for it in a user turn (then repeated words are too)
   */
  void beginContinuation(boolean prefill) {
    held = null;
    heldBlocks = null;
    usageCurrent.forEach((k, v) -> usageBefore.merge(k, v, Long::sum));
    usageCurrent.clear();
    clientIndex.clear();
    dropped.clear();
    continuation = true;
    wordOverlap = !prefill;
    firstBlockOfAttempt = true;
    continuedIndex = null;
    overlapBuffer = null;
    lastDeltaIndex = -1;
    if (open != null && open.type.equals("thinking")) {
      // signed but unstopped thinking is complete: the continuation starts a new block after it
      open = open.signature != null ? open : null;
    }
  }

  /**
   * The events that finish a message whose final {@code message_delta} was already sent but
   * whose {@code message_stop} never came.
   */
  List<SseEvent> finishWithoutStop() {
    messageStopSent = true;
    return List.of(new SseEvent("message_stop", "{\"type\":\"message_stop\"}"));
  }

  /** Content deltas that repeated the previous one byte for byte (dropped or not). */
  long duplicates() {
    return duplicates;
  }
}
