package dev.levee.anthropic.stream;

/** The Messages API's stream event names, plus {@link #UNKNOWN} for any other (kept, relayed). */
public enum EventType {
  MESSAGE_START, CONTENT_BLOCK_START, CONTENT_BLOCK_DELTA, CONTENT_BLOCK_STOP, MESSAGE_DELTA, MESSAGE_STOP,
  PING, ERROR, UNKNOWN;

  /** The type of an event name; {@link #UNKNOWN} for names this version does not know. */
  public static EventType of(String name) {
    return switch (name) {
      case "message_start" -> MESSAGE_START;
      case "content_block_start" -> CONTENT_BLOCK_START;
      case "content_block_delta" -> CONTENT_BLOCK_DELTA;
      case "content_block_stop" -> CONTENT_BLOCK_STOP;
      case "message_delta" -> MESSAGE_DELTA;
      case "message_stop" -> MESSAGE_STOP;
      case "ping" -> PING;
      case "error" -> ERROR;
      default -> UNKNOWN;
    };
  }
}
