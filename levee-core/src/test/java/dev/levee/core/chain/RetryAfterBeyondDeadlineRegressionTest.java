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
 * Regression (newcomer trial): a target that answered 429 with a {@code retry-after} within {@code
 * max-retry-after} (60 s here) but longer than the deadline had left was rightly not waited for, yet
 * the chain recorded nothing of it: the target's report said {@code "429 rate_limit_error (1
 * call)"}, as with {@code max-retries: 0}, and an answer from the next target said no more. The
 * give-up is now a {@link AttemptRecord.Step#DEADLINE} step on that target with the time the
 * deadline had left, and its report says it was not retried and why.
 */
@Tag("regression")
class RetryAfterBeyondDeadlineRegressionTest extends ChainFixture {

  private static final Duration THIRTY = Duration.ofSeconds(30);

  @Test
  void aLoneTargetWhoseStatedWaitOutlastsTheDeadlineSaysWhyItWasNotRetried() {
    upstream.on(A, upstream.after(Duration.ofSeconds(3), fail(Failures.rateLimited(THIRTY))),
        ok("must not be asked"));
    long start = clock.nanos();

    ChainResult.Exhausted<String> exhausted = exhausted(run(Duration.ofSeconds(15), A));

    assertThat(Duration.ofNanos(clock.nanos() - start)).as("the 30 s were not sat out")
        .isEqualTo(Duration.ofSeconds(3));
    assertThat(upstream.calls()).hasSize(1);
    assertThat(steps(exhausted)).containsExactly(FAILED, Step.DEADLINE);
    AttemptRecord gaveUp = exhausted.steps().get(1);
    assertThat(gaveUp.target()).isEqualTo(A);
    assertStatedThirtyWithTwelveLeft(gaveUp.waitTooLong());
    assertThat(gaveUp.called()).isFalse();
    assertThat(reports(exhausted)).containsExactly("anthropic/claude-a: 429 rate_limit_error "
        + "(1 call, then not retried: retry-after 30 s does not fit in the 12 s left of the deadline)");
    assertThat(exhausted.retryAfter()).as("still the stated wait").contains(THIRTY);
  }

  @Test
  void aFallbackAfterSuchAGiveUpKeepsTheStepThatExplainsIt() {
    upstream.on(A, upstream.after(Duration.ofSeconds(3), fail(Failures.rateLimited(THIRTY))));
    upstream.on(B, ok("from b"));

    ChainResult.Answered<String> answered = answered(run(Duration.ofSeconds(15), A, B));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(steps(answered)).containsExactly(FAILED, Step.DEADLINE, ANSWERED);
    assertThat(answered.steps()).extracting(AttemptRecord::target).containsExactly(A, A, B);
    assertThat(answered.steps().get(0).waitTooLong()).isNull();
    assertStatedThirtyWithTwelveLeft(answered.steps().get(1).waitTooLong());
    assertThat(answered.steps().get(2).waitTooLong()).isNull();
  }

  /** The stated 30 s, the 12 s left, and what sitting it out would have taken: 30 s, its jitter (up to 10 %), then min-attempt-time. */
  private static void assertStatedThirtyWithTwelveLeft(WaitTooLong why) {
    assertThat(why).isInstanceOfSatisfying(WaitTooLong.StatedBeyondDeadline.class, w -> {
      assertThat(w.stated()).isEqualTo(THIRTY);
      assertThat(w.left()).isEqualTo(Duration.ofSeconds(12));
      assertThat(w.needed()).isBetween(THIRTY.plusMillis(100), Duration.ofMillis(33_100));
    });
  }

  @Test
  void aStatedWaitThatFitsIsSatOutAndNoGiveUpIsRecorded() {
    random = ScriptedRandom.always(0.0);
    upstream.on(A, fail(Failures.rateLimited(Duration.ofSeconds(5))), ok("after the wait"));

    ChainResult.Answered<String> answered = answered(run(Duration.ofSeconds(15), A));

    assertThat(steps(answered)).containsExactly(FAILED, ANSWERED);
    assertThat(answered.steps().get(1).waited()).isEqualTo(Duration.ofSeconds(5));
    assertThat(answered.steps()).extracting(AttemptRecord::waitTooLong).containsOnlyNulls();
  }
}
