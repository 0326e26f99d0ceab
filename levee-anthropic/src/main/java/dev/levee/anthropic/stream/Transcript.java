package dev.levee.anthropic.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.EventFields;
import dev.levee.anthropic.sse.SseEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * The answer as the client has it so far — every block released to it, in order, with its text
 * accumulated once (a {@code StringBuilder} per block) — and the one still open (its {@code
 * content_block_stop} not sent). A recovery is built from it ({@link #content()}). Not thread-safe.
 */
final class Transcript {

  /** One block as the client has it. */
  static final class Block {
    final int index;
    final String type;
    final JsonNode start; // the content_block of content_block_start; null for text and thinking (rebuilt from text)
    final StringBuilder text = new StringBuilder(); // text, thinking, or a tool call's input JSON
    String signature;
    long deltas; // text and thinking deltas: each carries at least one token

    /**
     * @param start the block's {@code content_block}; kept only when the block cannot be rebuilt
     *     from its text (a tree per stream for its whole life otherwise), and may be null then
     */
    Block(int index, String type, JsonNode start) {
      this.index = index;
      this.type = type;
      this.start = rebuiltFromText(type) ? null : start;
    }

    /** Whether a block of this type is rebuilt from its text (text and thinking), not kept as it started. */
    static boolean rebuiltFromText(String type) {
      return type.equals("text") || type.equals("thinking");
    }

    /** Adds a delta's content. */
    void add(EventFields delta) {
      switch (delta.deltaType()) {
        case "text_delta" -> {
          text.append(delta.text());
          deltas++;
        }
        case "thinking_delta" -> {
          text.append(delta.thinking());
          deltas++;
        }
        case "input_json_delta" -> text.append(delta.partialJson()); // not counted: the first is often empty
        case "signature_delta" -> signature = delta.signature();
        default -> { } // citations and future delta types are relayed, not needed to recover
      }
    }
  }

  /**
   * What the client's content amounts to, for counting its output tokens: its UTF-8 bytes (text,
   * thinking, tool calls' input JSON, other blocks' start JSON) and its text and thinking deltas.
   */
  record Tally(long bytes, long deltas) {

    static final Tally NONE = new Tally(0, 0);

    /** What was added after {@code earlier}. */
    Tally since(Tally earlier) {
      return new Tally(bytes - earlier.bytes, deltas - earlier.deltas);
    }

    /**
     * Its output tokens counted so as not to fall short: one per {@link #BYTES_PER_TOKEN} bytes,
     * and at least one per delta.
     */
    long countedHigh() {
      return Math.max(deltas, (bytes + BYTES_PER_TOKEN - 1) / BYTES_PER_TOKEN);
    }
  }

  /**
   * Bytes of delivered text counted as one output token when the upstream's own count is unknown
   * (a cut attempt reports its output tokens only in the {@code message_delta} it never sent):
   * Claude's tokenizers average 3.5–4 characters a token in English text and about 3 in code, so
   * 2 bytes a token overcounts nearly all text, which keeps a recovered answer within the client's
   * {@code max_tokens}.
   */
  static final int BYTES_PER_TOKEN = 2;

  private final List<Block> blocks = new ArrayList<>();
  private Block open;

  /** Blocks released so far. */
  int size() {
    return blocks.size();
  }

  boolean isEmpty() {
    return blocks.isEmpty();
  }

  /** The last released block while its stop has not been sent, else null. */
  Block open() {
    return open;
  }

  /** Whether the open block is a text block (a recovery's first text can extend it). */
  boolean openIsText() {
    return open != null && open.type.equals("text");
  }

  /** A block released live; it is open until the next one starts or the message ends. */
  void start(Block block) {
    blocks.add(block);
    open = block;
  }

  /** Held blocks released together (tool calls): the client has them whole. */
  void released(List<Block> held) {
    blocks.addAll(held);
  }

  /** Adds the open block's {@code content_block_stop} to {@code out}, if a block is open. */
  void closeOpen(List<SseEvent> out) {
    if (open != null) {
      out.add(new SseEvent("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + open.index + "}"));
      open = null;
    }
  }

  /** Records a delta sent to the client into the open block. */
  void record(EventFields delta) {
    if (open != null) {
      open.add(delta);
    }
  }

  /** Appends recovered text to the open text block. */
  void append(String text) {
    open.text.append(text);
    open.deltas++;
  }

  /**
   * The client's content as bytes and deltas ({@link Tally}), computed on demand (once a break or
   * a recovery), not per delta. A tool call's bytes are its start's JSON and its input JSON; a
   * thinking block's are its text (not its signature).
   */
  Tally tally() {
    long bytes = 0;
    long deltas = 0;
    for (Block block : blocks) {
      bytes += utf8Length(block.text) + (block.start == null ? 0 : utf8Length(Json.string(block.start)));
      deltas += block.deltas;
    }
    return new Tally(bytes, deltas);
  }

  /** Whether the content holds a thinking or redacted thinking block. */
  boolean hasThinking() {
    for (Block block : blocks) {
      if (block.type.equals("thinking") || block.type.equals("redacted_thinking")) {
        return true;
      }
    }
    return false;
  }

  private static long utf8Length(CharSequence text) {
    long bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3; // a surrogate pair: 4 bytes
    }
    return bytes;
  }

  /**
   * Whether a break now can be recovered: not inside a thinking block that has no signature yet
   * (a recovery cannot extend a thinking block, and an unsigned one cannot be sent back).
   */
  boolean recoverable() {
    return open == null || !open.type.equals("thinking") || open.signature != null;
  }

  /** A recovery begins: a signed but unstopped thinking block is complete, and the recovery starts a new block after it. */
  void beginRecovery() {
    if (open != null && open.type.equals("thinking")) {
      open = open.signature != null ? open : null;
    }
  }

  /** What the client has: the content of the assistant turn a recovery must extend. */
  List<ObjectNode> content() {
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
        default -> {
          node.setAll((ObjectNode) block.start.deepCopy()); // redacted_thinking and tool_use: as they started
          JsonNode input = block.text.isEmpty() ? null : Json.tryParse(block.text.toString());
          if (input != null) {
            node.set("input", input); // a tool call's input, streamed as input_json_delta
          }
        }
      }
      content.add(node);
    }
    return content;
  }
}
