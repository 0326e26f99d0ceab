package dev.levee.anthropic.sse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.levee.anthropic.Json;
import java.util.Objects;

/**
 * One server-sent event as the Messages API streams it: {@code event: <type>} and one {@code
 * data:} payload (JSON for every event the API sends today).
 *
 * <p>A value: equal events have equal names and data. Its data is parsed at most once, on the
 * first {@link #json()}, and the tree is shared by everyone who reads the event (the stream
 * splicer, the message assembler): read it, never change it.
 */
public final class SseEvent {

  private final String event;
  private final String data;
  private volatile JsonNode json; // null: not parsed yet; MissingNode: not JSON

  /**
   * @param event the event name, e.g. {@code content_block_delta}; {@code message} when the stream
   *     gave none (the SSE default)
   * @param data the payload, lines joined with {@code \n}
   */
  public SseEvent(String event, String data) {
    this.event = Objects.requireNonNull(event, "event");
    this.data = Objects.requireNonNull(data, "data");
  }

  /**
   * An event whose data its maker has already as a tree (it serialised {@code json} to {@code
   * data}): {@link #json()} returns that tree without parsing.
   */
  public SseEvent(String event, String data, JsonNode json) {
    this(event, data);
    this.json = Objects.requireNonNull(json, "json");
  }

  /** The event name. */
  public String event() {
    return event;
  }

  /** The payload, lines joined with {@code \n}. */
  public String data() {
    return data;
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

  @Override
  public boolean equals(Object o) {
    return o instanceof SseEvent other && event.equals(other.event) && data.equals(other.data);
  }

  @Override
  public int hashCode() {
    return 31 * event.hashCode() + data.hashCode();
  }

  @Override
  public String toString() {
    return "event: " + event + " data: " + (data.length() > 200 ? data.substring(0, 200) + "..." : data);
  }
}
