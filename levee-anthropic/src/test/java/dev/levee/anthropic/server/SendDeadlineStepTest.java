package dev.levee.anthropic.server;

import static dev.levee.anthropic.server.SendDeadline.NEVER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.server.SendDeadline.Step;
import org.junit.jupiter.api.Test;

/**
 * The send deadline's decision for a pending write ({@link SendDeadline#step}), on a fake clock in
 * seconds: a 4 s timeout swept every second. A write is re-offered to the socket only when it has
 * taken nothing for the timeout less one sweep, and cut only once it has been pending and taken
 * nothing for the timeout, after an offer that found no room.
 */
class SendDeadlineStepTest {

  private static final long S = 1_000_000_000L;
  private static final long TIMEOUT = 4 * S;
  private static final long PERIOD = S;

  private static Step step(long now, long pendingSince, long lastWrite, long offeredAt) {
    return SendDeadline.step(now, pendingSince, lastWrite, offeredAt, TIMEOUT, PERIOD);
  }

  @Test
  void aWriteThatTookBytesLatelyWaits() {
    assertThat(step(100 * S, 90 * S, 98 * S, NEVER)).isEqualTo(Step.WAIT);
  }

  @Test
  void aWriteQuietForLessThanTheTimeoutLessOneSweepIsNotOfferedAgain() {
    assertThat(step(100 * S, 90 * S, 97 * S + 1, NEVER)).as("quiet just under 3 s").isEqualTo(Step.WAIT);
  }

  @Test
  void aWriteQuietForTheTimeoutLessOneSweepIsOfferedAgain() {
    assertThat(step(100 * S, 90 * S, 97 * S, NEVER)).isEqualTo(Step.OFFER);
  }

  @Test
  void aWritePendingAndQuietForTheTimeoutIsCutOnceAnOfferFoundNoRoom() {
    assertThat(step(100 * S, 96 * S, 96 * S, 99 * S)).isEqualTo(Step.CUT);
  }

  @Test
  void aWriteNeverOfferedAgainIsOfferedNotCut() {
    assertThat(step(100 * S, 90 * S, 90 * S, NEVER)).as("late sweeps skipped the offer").isEqualTo(Step.OFFER);
  }

  @Test
  void anOfferThatMadeProgressDoesNotCount() {
    assertThat(step(100 * S, 90 * S, 96 * S, 95 * S)).as("the offer at 95 s took bytes at 96 s").isEqualTo(Step.OFFER);
  }

  @Test
  void aWritePendingForLessThanTheTimeoutIsNotCutHoweverLongTheSocketWasQuiet() {
    // a handler silent for a minute (no write pending), whose next write meets a full buffer
    assertThat(step(100 * S, 98 * S, 40 * S, 99 * S)).isEqualTo(Step.OFFER);
  }

  @Test
  void aSlowReaderIsNeverCutAndOfferedOnlyNearTheTimeout() {
    long lastWrite = 0;
    long offeredAt = NEVER;
    int offers = 0;
    for (long now = PERIOD; now <= 1000 * S; now += PERIOD) { // the write stays pending throughout
      Step step = step(now, 0, lastWrite, offeredAt);
      assertThat(step).as("at %d s", now / S).isNotEqualTo(Step.CUT);
      if (step == Step.OFFER) {
        offers++;
        offeredAt = now;
        lastWrite = now; // the client read a little: the offer took bytes
      }
    }

    assertThat(offers).as("one offer per 3 s of quiet, not one per sweep").isEqualTo(333);
  }

  @Test
  void aClientThatStopsReadingIsCutOneSweepAfterTheTimeoutAtMost() {
    long lastWrite = 0;
    long offeredAt = NEVER;
    long now = PERIOD;
    for (; step(now, 0, lastWrite, offeredAt) != Step.CUT; now += PERIOD) {
      if (step(now, 0, lastWrite, offeredAt) == Step.OFFER) {
        offeredAt = now; // and it takes nothing
      }
    }

    assertThat(now).isEqualTo(TIMEOUT);
  }
}
