package dev.levee.anthropic.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.message.TokenUsage;
import dev.levee.anthropic.sse.EventFields;
import dev.levee.anthropic.sse.FrameFields;
import dev.levee.anthropic.sse.SseEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the events of successive upstream attempts into one stream the client can trust: one
 * {@code message_start} with the original id, consistent block indices, no text missing or
 * repeated, usage summed across attempts (a broken attempt's output tokens counted from what it
 * delivered), one {@code message_stop}.
 *
 * <p>What the client receives, and when:
 *
 * <ul>
 *   <li>text and thinking deltas go out live;
 *   <li>a {@code content_block_stop} goes out only when the next block starts or the message
 *       ends, so a break right after a block leaves it open and a recovery can extend it;
 *   <li>from the first block of any other type ({@code tool_use}, server tools, types this
 *       version does not know) until {@code message_delta}, everything is held and released
 *       together: the client never gets a tool call with partial JSON, and a break inside one
 *       discards it and recovers from the last text;
 *   <li>a recovery's {@code message_start} and its thinking blocks are dropped; its first text
 *       block extends the client's open text block, minus any overlap ({@link Overlap});
 *   <li>a recovery whose {@code message_start} shows the answer already at the client's {@code
 *       max_tokens} is dropped, and the message ends there; one that stops at the {@code
 *       max_tokens} Levee lowered, short of the client's by the upstream's own count ({@link
 *       OutputCount}), holds its {@code message_delta} and {@code message_stop} while the answer
 *       goes on ({@link #stoppedShort()});
 *   <li>a content delta repeated byte for byte at the same block is counted as a suspected
 *       duplicate, and dropped when so configured ({@link DuplicateCounter}).
 * </ul>
 *
 * <p>Its parts: the client's {@link Transcript} (what a recovery is built from), {@link
 * BlockIndices}, {@link UsageTotals}, {@link OutputCount} and the {@link DuplicateCounter}. Not thread-safe: one
 * splicer per client stream.
 */
final class StreamSplicer {

  private final Transcript transcript = new Transcript();
  private final BlockIndices indices = new BlockIndices();
  private final UsageTotals usage;
  private final OutputCount count = new OutputCount();
  private final long maxTokens;
  private final DuplicateCounter duplicates;

  private boolean started;
  private boolean messageDeltaSent;
  private boolean messageStopSent;

  private List<SseEvent> held; // non-null while holding whole blocks (see class doc)
  private List<Transcript.Block> heldBlocks;

  // the current attempt
  private boolean recovering; // the attempt is a recovery
  private boolean goingOn; // the attempt goes on with an answer that stopped short, not after a break
  private JsonNode stoppedShort; // its message_delta, when it stopped short of the client's max_tokens (see messageDelta)
  private boolean wordOverlap;
  private boolean firstBlockOfAttempt = true;
  private StringBuilder overlapBuffer; // text of the extending block not yet checked for overlap

  /**
   * @param dropDuplicates whether a content delta repeated byte for byte is dropped
   * @param maxTokens the {@code max_tokens} the client's stream was asked for (the tier's cap
   *     applied), or -1 when unknown: the output tokens it reports never exceed it
   */
  StreamSplicer(boolean dropDuplicates, long maxTokens) {
    this.duplicates = new DuplicateCounter(dropDuplicates);
    this.usage = new UsageTotals(maxTokens);
    this.maxTokens = maxTokens;
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
    if (type == EventType.CONTENT_BLOCK_DELTA || type == EventType.CONTENT_BLOCK_STOP || type == EventType.MESSAGE_STOP) {
      EventFields fields = event.fields(); // read once without a tree, shared with the assembler
      if (fields == null) {
        throw malformed(event);
      }
      return switch (type) {
        case CONTENT_BLOCK_DELTA -> blockDelta(event, fields);
        case CONTENT_BLOCK_STOP -> blockStop(event, fields);
        default -> messageStop(event);
      };
    }
    FrameFields frame = event.frame(); // read once without a tree, shared with the assembler
    if (frame == null) {
      throw malformed(event);
    }
    return switch (type) {
      case MESSAGE_START -> messageStart(event, frame);
      case CONTENT_BLOCK_START -> blockStart(event, frame);
      case MESSAGE_DELTA -> messageDelta(event, frame);
      default -> List.of(event);
    };
  }

  private static StreamFailureException malformed(SseEvent event) {
    return new StreamFailureException(UpstreamStream.malformed(
        "the upstream sent an event whose data is not JSON (" + event.event() + ")"));
  }

  /** The event as a tree, for the rare edit or block that needs one (the event was read as an object already). */
  private static JsonNode tree(SseEvent event) throws StreamFailureException {
    JsonNode tree = event.json();
    if (tree == null) {
      throw malformed(event);
    }
    return tree;
  }

  private List<SseEvent> messageStart(SseEvent event, FrameFields frame) {
    usage.read(frame);
    if (!started) {
      started = true;
      count.first(frame);
      return List.of(event);
    }
    // a recovery: the client already has its message_start; its input may tell what the answer cost
    if (count.reconcile(frame, transcript.hasThinking())) {
      usage.rebank(count.tokens());
    }
    if (maxTokens > 0 && count.tokens() >= maxTokens) {
      usage.bank(count.tokens()); // nothing left after all: the continuation is not used
      return finishAtMaxTokens();
    }
    return List.of();
  }

  private List<SseEvent> blockStart(SseEvent event, FrameFields frame) throws StreamFailureException {
    int upstream = frame.index();
    String type = frame.blockType();
    duplicates.boundary();
    if (recovering && (type.equals("thinking") || type.equals("redacted_thinking")) && !transcript.isEmpty()) {
      indices.drop(upstream); // the recovery's own reasoning: the client has its thinking already
      return List.of();
    }
    boolean first = firstBlockOfAttempt;
    firstBlockOfAttempt = false;
    if (held != null) {
      int index = nextIndex();
      indices.map(upstream, index);
      heldBlocks.add(new Transcript.Block(index, type, start(event, type)));
      return hold(reindexed(event, frame, index));
    }
    if (first && recovering && type.equals("text") && transcript.openIsText()) {
      indices.extend(upstream, transcript.open().index); // extends the client's open text block
      overlapBuffer = new StringBuilder();
      return List.of();
    }
    int index = nextIndex();
    indices.map(upstream, index);
    if (!type.equals("text") && !type.equals("thinking") && !type.equals("redacted_thinking")) {
      // hold from here to message_delta; the open block's stop waits too, so that a break in
      // the held part leaves the client's last text open for the recovery to extend
      held = new ArrayList<>();
      heldBlocks = new ArrayList<>();
      heldBlocks.add(new Transcript.Block(index, type, start(event, type)));
      return hold(reindexed(event, frame, index));
    }
    List<SseEvent> out = new ArrayList<>();
    transcript.closeOpen(out);
    transcript.start(new Transcript.Block(index, type, start(event, type)));
    out.add(reindexed(event, frame, index));
    return out;
  }

  /** The block's {@code content_block} as a tree when the transcript keeps it ({@link Transcript.Block}), else null. */
  private static JsonNode start(SseEvent event, String type) throws StreamFailureException {
    return Transcript.Block.rebuiltFromText(type) ? null : tree(event).path("content_block");
  }

  /** The block start with its index set to the client's: as it came when that is its index already. */
  private static SseEvent reindexed(SseEvent event, FrameFields frame, int index) throws StreamFailureException {
    return frame.index() == index ? event : BlockIndices.reindex(event, tree(event), index);
  }

  private List<SseEvent> blockDelta(SseEvent event, EventFields fields) {
    int upstream = fields.index();
    if (indices.dropped(upstream) || duplicates.dropDelta(upstream, event.dataBytes())) {
      return List.of();
    }
    int index = indices.client(upstream);
    if (index < 0) {
      return List.of(event); // a delta for a block that never started: relay as is
    }
    if (held != null) {
      Transcript.Block last = heldBlocks.getLast();
      if (last.index == index) {
        last.add(fields); // the client gets it whole, input JSON included, when it is released
      }
      return hold(event.withIndex(index));
    }
    if (overlapBuffer != null && indices.extending(upstream) && fields.deltaType().equals("text_delta")) {
      overlapBuffer.append(fields.text());
      return overlapBuffer.length() >= Overlap.MAX ? resolveOverlap() : List.of();
    }
    transcript.record(fields);
    return List.of(event.withIndex(index));
  }

  private List<SseEvent> blockStop(SseEvent event, EventFields fields) {
    int upstream = fields.index();
    duplicates.boundary();
    if (indices.dropped(upstream)) {
      return List.of();
    }
    int index = indices.client(upstream);
    Transcript.Block open = transcript.open();
    if (held != null && index >= 0 && (open == null || index != open.index)) {
      return hold(event.withIndex(index));
    }
    return overlapBuffer != null && indices.extending(upstream) ? resolveOverlap() : List.of();
    // the stop itself is sent when the next block starts or the message ends
  }

  private List<SseEvent> messageDelta(SseEvent event, FrameFields frame) throws StreamFailureException {
    usage.read(frame);
    List<SseEvent> out = new ArrayList<>();
    if (overlapBuffer != null) {
      out.addAll(resolveOverlap());
    }
    if (stopsShort(event)) {
      stoppedShort = tree(event); // held, with the open block, until the answer goes on (or cannot)
      return out;
    }
    transcript.closeOpen(out);
    if (held != null) {
      out.addAll(held);
      transcript.released(heldBlocks);
      held = null;
      heldBlocks = null;
    }
    messageDeltaSent = true;
    out.add(usage.summing() ? usage.summed(tree(event)) : event);
    return out;
  }

  private List<SseEvent> messageStop(SseEvent event) {
    if (stoppedShort != null) {
      return List.of(); // sent when the answer ends
    }
    List<SseEvent> out = new ArrayList<>();
    transcript.closeOpen(out);
    messageStopSent = true;
    out.add(event);
    return out;
  }

  private List<SseEvent> hold(SseEvent event) {
    held.add(event);
    return List.of();
  }

  /** Sends the extending block's buffered text, minus what repeats the client's text. */
  private List<SseEvent> resolveOverlap() {
    String text = overlapBuffer.toString();
    overlapBuffer = null;
    Transcript.Block open = transcript.open();
    String fresh = text.substring(Overlap.of(open.text, text, wordOverlap));
    if (fresh.isEmpty()) {
      return List.of();
    }
    transcript.append(fresh);
    ObjectNode delta = Json.MAPPER.createObjectNode();
    delta.put("type", "content_block_delta");
    delta.put("index", open.index);
    delta.putObject("delta").put("type", "text_delta").put("text", fresh);
    return List.of(new SseEvent("content_block_delta", Json.string(delta), delta));
  }

  private int nextIndex() {
    return transcript.size() + (heldBlocks == null ? 0 : heldBlocks.size());
  }

  // --- breaks and recoveries ---

  /** Whether the final {@code message_delta} was sent: only {@code message_stop} can be missing. */
  boolean messageDeltaSent() {
    return messageDeltaSent;
  }

  /** Whether {@code message_stop} was sent. */
  boolean finished() {
    return messageStopSent;
  }

  /** The answer as the client has it: what a recovery continues from. */
  Transcript transcript() {
    return transcript;
  }

  /**
   * A continuation that stopped at the {@code max_tokens} Levee lowered while the client's limit is
   * not reached: after a break the continuation asked for what was left after the answer counted
   * high; once its {@code message_start} gave the upstream's own count ({@link OutputCount}), more
   * may be left. Only once after each break, and not inside a held tool call (its tokens are the
   * continuation's and its stop is as an unbroken answer's).
   */
  private boolean stopsShort(SseEvent messageDelta) throws StreamFailureException {
    return recovering && !goingOn && held == null && maxTokens > 0 && count.exact()
        && count.tokens() + usage.currentOutput() < maxTokens
        && "max_tokens".equals(tree(messageDelta).path("delta").path("stop_reason").asText()); // the tree last: rare
  }

  /**
   * Whether the current attempt ended at the {@code max_tokens} Levee lowered with the client's
   * limit not reached: its {@code message_delta} and {@code message_stop} are held, and the answer
   * may go on ({@link #goOn}) or end as it is ({@link #finishShort}).
   */
  boolean stoppedShort() {
    return stoppedShort != null;
  }

  /**
   * The current attempt ended (it broke, or {@link #stoppedShort()}): its usage is banked and the
   * output tokens the client's answer has cost so far are returned — as the upstream counted them
   * where it said, else counted high ({@link OutputCount}), never more than {@code max_tokens}. A
   * recovery may ask for the client's {@code max_tokens} minus this. Call once per attempt.
   */
  long endAttempt() {
    long spent = count.ended(transcript.tally(), usage.currentOutput(), stoppedShort != null);
    usage.bank(spent);
    return maxTokens > 0 ? Math.min(maxTokens, spent) : spent;
  }

  /**
   * Ends the message after a break that left no output tokens to continue with: the open block's
   * stop, a {@code message_delta} with {@code stop_reason: max_tokens} and the usage so far, and
   * {@code message_stop} — the end of an unbroken answer that reached its {@code max_tokens}. Call
   * after {@link #endAttempt()}.
   */
  List<SseEvent> finishAtMaxTokens() {
    held = null;
    heldBlocks = null;
    overlapBuffer = null;
    List<SseEvent> out = new ArrayList<>();
    transcript.closeOpen(out);
    out.add(usage.maxTokensDelta());
    out.add(new SseEvent("message_stop", "{\"type\":\"message_stop\"}"));
    messageDeltaSent = true;
    messageStopSent = true;
    return out;
  }

  /**
   * Ends an answer that {@link #stoppedShort()} as it stands, when it could not go on: the open
   * block's stop, its {@code message_delta} with the usage summed, {@code message_stop}. Call after
   * {@link #endAttempt()}.
   */
  List<SseEvent> finishShort() {
    JsonNode data = stoppedShort;
    stoppedShort = null;
    List<SseEvent> out = new ArrayList<>();
    transcript.closeOpen(out);
    out.add(usage.summed(data)); // after endAttempt: always summing
    out.add(new SseEvent("message_stop", "{\"type\":\"message_stop\"}"));
    messageDeltaSent = true;
    messageStopSent = true;
    return out;
  }

  /**
   * Forgets the broken attempt and prepares for a recovery: held blocks are discarded. Call after
   * {@link #endAttempt()}.
   *
   * @param prefill whether the recovery prefills the partial answer (then only repeated
   *     whitespace is trimmed) or asks for it in a user turn (then repeated words are too)
   */
  void beginRecovery(boolean prefill) {
    begin(prefill, false);
  }

  /** Prepares for the continuation of an answer that {@link #stoppedShort()}; as {@link #beginRecovery}. */
  void goOn(boolean prefill) {
    begin(prefill, true);
  }

  private void begin(boolean prefill, boolean goOn) {
    held = null;
    heldBlocks = null;
    stoppedShort = null;
    indices.reset();
    recovering = true;
    goingOn = goOn;
    wordOverlap = !prefill;
    firstBlockOfAttempt = true;
    overlapBuffer = null;
    duplicates.boundary();
    transcript.beginRecovery();
  }

  /**
   * The events that finish a message whose final {@code message_delta} was already sent but
   * whose {@code message_stop} never came.
   */
  List<SseEvent> finishWithoutStop() {
    messageStopSent = true;
    return List.of(new SseEvent("message_stop", "{\"type\":\"message_stop\"}"));
  }

  /**
   * The stream's token usage by attempt, in order ({@link UsageTotals#byAttempt()}): the first
   * attempt's, then one per recovery or {@link #goOn} begun; the last is all zeros when the last
   * attempt ended and none began after it. Adds up to the usage the client's final {@code message_delta} reports.
   */
  List<TokenUsage> usageByAttempt() {
    return usage.byAttempt();
  }

  /** Content deltas that repeated the previous one byte for byte (dropped or not). */
  long duplicates() {
    return duplicates.count();
  }
}
