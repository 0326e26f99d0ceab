package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.sse.SseEvent;
import org.junit.jupiter.api.Test;

/** The relay's flushes: before every wait, and at the first content delta even with more at hand. */
class RelayFlushesTest {

  private static final SseEvent START = new SseEvent("message_start", "{\"type\":\"message_start\"}");
  private static final SseEvent BLOCK = new SseEvent("content_block_start", "{\"type\":\"content_block_start\"}");
  private static final SseEvent DELTA = new SseEvent("content_block_delta", "{\"type\":\"content_block_delta\"}");

  private final RelayFlushes flushes = new RelayFlushes();

  @Test
  void eventsAtHandAreGatheredUntilTheFirstDelta() {
    assertThat(flushes.after(START, true)).isFalse();
    assertThat(flushes.after(BLOCK, true)).isFalse();
    assertThat(flushes.after(DELTA, true)).as("the first delta leaves at once").isTrue();
  }

  @Test
  void laterDeltasAtHandAreGathered() {
    flushes.after(DELTA, true);
    assertThat(flushes.after(DELTA, true)).isFalse();
    assertThat(flushes.after(DELTA, false)).as("nothing more at hand: flushed before the wait").isTrue();
  }

  /**
   * {@code message_stop} is left for the stream's end, which the handler writes with the body's
   * last chunk in one write as soon as the relay ends, before stage 6 (session 13's regression, a
   * failure in stage 6 losing a held {@code message_stop}, is {@code
   * StreamEndBeforeBookkeepingRegressionTest}'s to catch now).
   */
  @Test
  void messageStopIsLeftForTheStreamsEnd() {
    flushes.after(DELTA, true);
    assertThat(flushes.after(new SseEvent("message_stop", "{\"type\":\"message_stop\"}"), false)).isFalse();
  }

  @Test
  void everyEventIsFlushedBeforeAWait() {
    assertThat(flushes.after(START, false)).isTrue();
    assertThat(flushes.after(BLOCK, false)).isTrue();
  }
}
