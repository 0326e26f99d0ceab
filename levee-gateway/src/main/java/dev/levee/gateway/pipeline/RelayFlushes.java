package dev.levee.gateway.pipeline;

import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.stream.EventType;

/**
 * When the relay flushes what it has gathered to the client: before it would wait for the
 * upstream (so no event waits for another, and the events of one upstream read leave in one
 * write), and at the stream's first content delta, which never waits for the events that arrived
 * with it to be spliced, assembled and written (the time to the first token is what a client
 * waits for; session 6: ~30 µs at one connection with 30 deltas in one read). {@code message_stop}
 * leaves as any event does, before stage 6 records the stream: held for the stream's end, it waited
 * on that bookkeeping, and a failure there lost it (session 13, review). That costs a stream at most
 * one write more than one per upstream read. Not thread-safe; one per stream.
 */
final class RelayFlushes {

  private boolean deltaSeen;

  /**
   * Whether to flush after gathering {@code event}.
   *
   * @param moreAtHand whether the next event is at hand without waiting on the upstream
   */
  boolean after(SseEvent event, boolean moreAtHand) {
    if (!deltaSeen && EventType.of(event.event()) == EventType.CONTENT_BLOCK_DELTA) {
      deltaSeen = true;
      return true;
    }
    return !moreAtHand;
  }
}
