package dev.levee.gateway.pipeline;

import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.stream.EventType;

/**
 * When the relay flushes what it has gathered to the client: before it would wait for the
 * upstream, so the events of one upstream read leave in one write and no event waits for one
 * still to come (issue 11) — but not at {@code message_stop}: after it the resilient stream ends
 * without reading the upstream again, and the handler ends the client's stream at once, before
 * stage 6's bookkeeping, so {@code message_stop} leaves with the body's end ({@code
 * StreamEndBeforeBookkeepingRegressionTest}).
 *
 * <p>The first content delta is not flushed on its own when later events arrived with it
 * (sessions 6–17 did, for the time to the first token): they are already at hand and take
 * microseconds to splice and gather, while the extra write cost every such stream a system call;
 * a first delta that arrives alone, as the Messages API's usually do, is flushed before the wait
 * for the next. A burst larger than {@code SseWriter}'s write-through size is written in pieces
 * as it is gathered.
 */
final class RelayFlushes {

  private RelayFlushes() {}

  /**
   * Whether to flush after gathering {@code event}.
   *
   * @param moreAtHand whether the next event is at hand without waiting on the upstream
   */
  static boolean after(SseEvent event, boolean moreAtHand) {
    return !moreAtHand && EventType.of(event.event()) != EventType.MESSAGE_STOP; // message_stop leaves with the end
  }
}
