package dev.levee.anthropic.sse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.levee.anthropic.Json;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * One server-sent event as the Messages API streams it: {@code event: <type>} and one {@code
 * data:} payload (JSON for every event the API sends today).
 *
 * <p>A value: equal events have equal names and data. The data is kept as the UTF-8 bytes that
 * arrived, and is parsed at most once per view: as a whole tree on the first {@link #json()}, or
 * as the few fields a relay needs on the first {@link #fields()} (the cheap view for content
 * deltas and block stops) or {@link #frame()} (for the events around them). Each is shared by
 * everyone who reads the event (the stream splicer, the message assembler, the gateway's usage
 * tap): read them, never change them, and never change the bytes of {@link #dataBytes()}.
 */
public final class SseEvent {

  private final String event;
  private final byte[] data;
  private final boolean oneLine; // known to hold no line break (so a writer need not look for one)
  private String text; // data decoded, on demand
  private volatile JsonNode json; // null: not parsed yet; MissingNode: not JSON
  private volatile EventFields fields; // null: not read yet; EventFields.NOT_AN_OBJECT: not a JSON object
  private volatile FrameFields frame; // null: not read yet; FrameFields.NOT_AN_OBJECT: not a JSON object

  /**
   * @param event the event name, e.g. {@code content_block_delta}; {@code message} when the stream
   *     gave none (the SSE default)
   * @param data the payload, lines joined with {@code \n}
   */
  public SseEvent(String event, String data) {
    this(event, data.getBytes(StandardCharsets.UTF_8));
    this.text = data;
  }

  /**
   * An event whose data its maker has already as a tree (it serialised {@code json} to {@code
   * data}): {@link #json()} returns that tree without parsing.
   */
  public SseEvent(String event, String data, JsonNode json) {
    this(event, data);
    this.json = Objects.requireNonNull(json, "json");
  }

  /**
   * An event over UTF-8 data bytes, taken as they are (not copied): the caller hands them over
   * and never changes them.
   *
   * @param data the payload in UTF-8, lines joined with {@code \n}
   */
  public SseEvent(String event, byte[] data) {
    this(event, data, false);
  }

  /**
   * An event over UTF-8 data bytes, taken as they are, that its maker knows to hold no CR or LF
   * when {@code oneLine} (a reader that took them from one {@code data:} line).
   */
  SseEvent(String event, byte[] data, boolean oneLine) {
    this.event = Objects.requireNonNull(event, "event");
    this.data = Objects.requireNonNull(data, "data");
    this.oneLine = oneLine;
  }

  /** An event over bytes whose fields its maker has already read (see {@link EventFields#withIndex}). */
  SseEvent(String event, byte[] data, EventFields fields, boolean oneLine) {
    this(event, data, oneLine);
    this.fields = fields;
  }

  /** The event name. */
  public String event() {
    return event;
  }

  /** The payload, lines joined with {@code \n}. */
  public String data() {
    String s = text;
    if (s == null) {
      text = s = new String(data, StandardCharsets.UTF_8);
    }
    return s;
  }

  /** The payload's UTF-8 bytes, lines joined with {@code \n}. Shared: do not modify. */
  public byte[] dataBytes() {
    return data;
  }

  /** Whether the data is known to hold no line break: false when unknown. */
  boolean oneLine() {
    return oneLine;
  }

  /** The payload as JSON, parsed once per event; null when it is not JSON. Shared: do not modify. */
  public JsonNode json() {
    JsonNode tree = json;
    if (tree == null) {
      tree = Json.tryParse(data);
      json = tree = tree == null ? MissingNode.getInstance() : tree;
    }
    return tree.isMissingNode() ? null : tree;
  }

  /**
   * The few fields of a content delta or block stop a relay needs (its index, the delta's type
   * and text), read once per event without building a tree; null when the data is not a JSON
   * object.
   */
  public EventFields fields() {
    EventFields f = fields;
    if (f == null) {
      fields = f = EventFields.read(data);
    }
    return f == EventFields.NOT_AN_OBJECT ? null : f;
  }

  /**
   * The few fields of a {@code message_start}, {@code content_block_start} or {@code message_delta}
   * a relay needs (the usage, the index, the block's type: {@link FrameFields}), read once per
   * event without building a tree; null when the data is not a JSON object.
   */
  public FrameFields frame() {
    FrameFields f = frame;
    if (f == null) {
      frame = f = FrameFields.read(event, data);
    }
    return f == FrameFields.NOT_AN_OBJECT ? null : f;
  }

  /**
   * This event with its top-level {@code index} set to {@code index}, every other byte as it
   * came; the same event when the index is already that. Reads {@link #fields()}.
   *
   * @throws IllegalStateException when the data is not a JSON object
   */
  public SseEvent withIndex(int index) {
    EventFields f = fields();
    if (f == null) {
      throw new IllegalStateException("not a JSON object: " + this);
    }
    if (f.index() == index) {
      return this;
    }
    EventFields.Rewritten rewritten = f.withIndex(data, index);
    // one line still: digits replaced, or the mapper's compact output (it escapes every control character)
    return new SseEvent(event, rewritten.data(), rewritten.fields(), oneLine);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SseEvent other && event.equals(other.event) && Arrays.equals(data, other.data);
  }

  @Override
  public int hashCode() {
    return 31 * event.hashCode() + Arrays.hashCode(data);
  }

  @Override
  public String toString() {
    String d = data();
    return "event: " + event + " data: " + (d.length() > 200 ? d.substring(0, 200) + "..." : d);
  }
}
