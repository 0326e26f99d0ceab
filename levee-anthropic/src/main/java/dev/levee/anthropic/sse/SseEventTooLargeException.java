package dev.levee.anthropic.sse;

import java.io.IOException;

/**
 * One event of the stream grew past {@link SseReader#MAX_EVENT_BYTES} without ending (no blank
 * line): the stream is broken, the way an event whose data is not JSON is. An {@link IOException},
 * so that it ends the read like the connection faults a reader already reports.
 */
public final class SseEventTooLargeException extends IOException {

  /** @param maxEventBytes the bound the event went past, in bytes */
  public SseEventTooLargeException(int maxEventBytes) {
    super("the upstream sent an event of more than " + maxEventBytes + " bytes ("
        + (maxEventBytes >> 20) + " MiB) without ending it");
  }
}
