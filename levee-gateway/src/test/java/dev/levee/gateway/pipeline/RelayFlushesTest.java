package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.sse.SseEvent;
import org.junit.jupiter.api.Test;

/** The relay's flushes: before every wait, never while more events are at hand, and not at {@code message_stop}. */
class RelayFlushesTest {

  private static final SseEvent START = new SseEvent("message_start", "{\"type\":\"message_start\"}");
  private static final SseEvent BLOCK = new SseEvent("content_block_start", "{\"type\":\"content_block_start\"}");
  private static final SseEvent DELTA = new SseEvent("content_block_delta", "{\"type\":\"content_block_delta\"}");

  /**
   * Regression (issue 11): the first delta was flushed on its own even with later events of the
   * same upstream read at hand, so a stream that arrived in one read left in one write more.
   */
  @Test
  void eventsAtHandAreGatheredTheFirstDeltaToo() {
    assertThat(RelayFlushes.after(START, true)).isFalse();
    assertThat(RelayFlushes.after(BLOCK, true)).isFalse();
    assertThat(RelayFlushes.after(DELTA, true)).as("the first delta leaves with the events that came with it").isFalse();
    assertThat(RelayFlushes.after(DELTA, true)).isFalse();
    assertThat(RelayFlushes.after(DELTA, false)).as("nothing more at hand: flushed before the wait").isTrue();
  }

  /**
   * {@code message_stop} is left for the stream's end, which the handler writes with the body's
   * last chunk as soon as the relay ends, before stage 6 (session 13's regression, a failure in
   * stage 6 losing a held {@code message_stop}, is {@code StreamEndBeforeBookkeepingRegressionTest}'s
   * to catch now).
   */
  @Test
  void messageStopIsLeftForTheStreamsEnd() {
    assertThat(RelayFlushes.after(new SseEvent("message_stop", "{\"type\":\"message_stop\"}"), false)).isFalse();
  }

  @Test
  void everyEventIsFlushedBeforeAWait() {
    assertThat(RelayFlushes.after(START, false)).isTrue();
    assertThat(RelayFlushes.after(BLOCK, false)).isTrue();
    assertThat(RelayFlushes.after(DELTA, false)).isTrue();
  }
}
