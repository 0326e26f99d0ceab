package dev.levee.gateway.pipeline;

import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.stream.EventType;

/**
 * When the relay flushes what it has gathered to the client: before it would wait for the
 * upstream (so no event waits for another, and the events of one upstream read leave in one
 * write), and at the stream's first content delta, which never waits for the events that arrived
 * with it to be spliced, assembled and written (the time to the first token is what a client
 * waits for; session 6: ~30 µs at one connection with 30 deltas in one read) — but not at {@code
 * message_stop}: after it the resilient stream ends without reading the upstream again, and the
 * handler ends the client's stream at once, before stage 6's bookkeeping, so {@code message_stop}
 * and the body's last chunk leave in one write ({@code StreamEndBeforeBookkeepingRegressionTest}).
 * Session 13 held it for an end written after stage 6, where it waited on that bookkeeping and a
 * failure in it lost it; the end now comes before stage 6 runs. A stream costs at most one write
 * more than one per upstream read (its first delta's). Not thread-safe; one per stream.
 */
final class RelayFlushes {

  private boolean deltaSeen;

  /**
   * Whether to flush after gathering {@code event}.
   *
   * @param moreAtHand whether the next event is at hand without waiting on the upstream
   */
  boolean after(SseEvent event, boolean moreAtHand) {
    EventType type = EventType.of(event.event());
    if (!deltaSeen && type == EventType.CONTENT_BLOCK_DELTA) {
      deltaSeen = true;
      return true;
    }
    return !moreAtHand && type != EventType.MESSAGE_STOP; // message_stop leaves with the stream's end
  }
}
