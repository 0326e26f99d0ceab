package dev.levee.anthropic.sse;

import java.util.Objects;

/**
 * One server-sent event as the Messages API streams it: {@code event: <type>} and one {@code
 * data:} payload (JSON for every event the API sends today).
 *
 * @param event the event name, e.g. {@code content_block_delta}; {@code message} when the stream
 *     gave none (the SSE default)
 * @param data the payload, lines joined with {@code \n}
 */
public record SseEvent(String event, String data) {

  public SseEvent {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(data, "data");
  }

  @Override
  public String toString() {
    return "event: " + event + " data: " + (data.length() > 200 ? data.substring(0, 200) + "..." : data);
  }
}
