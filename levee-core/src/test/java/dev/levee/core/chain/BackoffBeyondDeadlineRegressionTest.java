package dev.levee.core.chain;

import static dev.levee.core.chain.AttemptRecord.Step.ANSWERED;
import static dev.levee.core.chain.AttemptRecord.Step.FAILED;
import static dev.levee.core.chain.ScriptedUpstream.fail;
import static dev.levee.core.chain.ScriptedUpstream.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.AttemptRecord.Step;
import dev.levee.core.testing.ScriptedRandom;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Regression (sibling of {@link RetryAfterBeyondDeadlineRegressionTest}): a retryable failure that
 * stated no wait (a 500, a 529 without {@code retry-after}) whose full-jitter backoff did not fit in
 * the deadline's time left was rightly not retried, yet the chain recorded nothing of it: the
 * target's report said {@code "500 api_error (2 calls)"}, as if {@code max-retries} had run out.
 * The give-up is now a {@link AttemptRecord.Step#DEADLINE} step on that target with the backoff
 * drawn, {@code min-attempt-time} and the time left, and its report says so. The words give the
 * wait drawn, not its ceiling: another draw of the jitter might have fit.
 *
 * <p>Fixture: backoff 500 ms base, each U(0,1) draw 0.5 unless set; min-attempt-time 100 ms.
 */
@Tag("regression")
class BackoffBeyondDeadlineRegressionTest extends ChainFixture {

  @Test
  void aLoneTargetWhoseBackoffOutlastsTheDeadlineSaysWhyItWasNotRetried() {
    // 2 s deadline: the first call fails at 1 s, 250 ms backoff (U = 0.5 of 500 ms), the second fails
    // at 1.75 s; the next backoff, 500 ms (U = 0.5 of 1 s), and 100 ms of attempt need more than 250 ms
    upstream.on(A, upstream.after(Duration.ofSeconds(1), fail(Failures.serverError())),
        upstream.after(Duration.ofMillis(500), fail(Failures.serverError())), ok("must not be asked"));
    long start = clock.nanos();

    ChainResult.Exhausted<String> exhausted = exhausted(run(Duration.ofSeconds(2), A));

    assertThat(Duration.ofNanos(clock.nanos() - start)).as("the 500 ms backoff was not slept")
        .isEqualTo(Duration.ofMillis(1_750));
    assertThat(upstream.calls()).hasSize(2);
    assertThat(steps(exhausted)).containsExactly(FAILED, FAILED, Step.DEADLINE);
    AttemptRecord gaveUp = exhausted.steps().get(2);
    assertThat(gaveUp.target()).isEqualTo(A);
    assertThat(gaveUp.called()).isFalse();
    assertThat(gaveUp.waitTooLong()).isEqualTo(new WaitTooLong.BackoffBeyondDeadline(Duration.ofMillis(500),
        Duration.ofMillis(100), Duration.ofMillis(250)));
    assertThat(reports(exhausted)).containsExactly("anthropic/claude-a: 500 api_error (2 calls, then not retried: "
        + "a backoff of 500 ms and min-attempt-time 100 ms do not fit in the 250 ms left of the deadline)");
  }

  @Test
  void theWordsGiveTheBackoffDrawnAndAnOverloadedFallbackKeepsTheStep() {
    // a 529 waits 2 · 500 ms · (1 + U): U = 0.2 draws 1200 ms, which with 100 ms does not fit in the 1 s left
    random = ScriptedRandom.always(0.2);
    upstream.on(A, upstream.after(Duration.ofSeconds(3), fail(Failures.overloaded())), ok("must not be asked"));
    upstream.on(B, ok("from b"));

    ChainResult.Answered<String> answered = answered(run(Duration.ofSeconds(4), A, B));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(steps(answered)).containsExactly(FAILED, Step.DEADLINE, ANSWERED);
    assertThat(answered.steps()).extracting(AttemptRecord::target).containsExactly(A, A, B);
    assertThat(answered.steps().get(1).waitTooLong()).isEqualTo(new WaitTooLong.BackoffBeyondDeadline(
        Duration.ofMillis(1_200), Duration.ofMillis(100), Duration.ofSeconds(1)));
  }

  @Test
  void aBackoffThatFitsIsSleptAndNoGiveUpIsRecorded() {
    // the same 1 s left: 250 ms (U = 0.5 of 500 ms) and 100 ms fit
    upstream.on(A, upstream.after(Duration.ofSeconds(3), fail(Failures.serverError())), ok("after the backoff"));

    ChainResult.Answered<String> answered = answered(run(Duration.ofSeconds(4), A));

    assertThat(steps(answered)).containsExactly(FAILED, ANSWERED);
    assertThat(answered.steps().get(1).waited()).isEqualTo(Duration.ofMillis(250));
    assertThat(answered.steps()).extracting(AttemptRecord::waitTooLong).containsOnlyNulls();
  }
}
