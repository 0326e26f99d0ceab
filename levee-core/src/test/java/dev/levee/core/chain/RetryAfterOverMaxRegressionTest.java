package dev.levee.core.chain;

import static dev.levee.core.chain.AttemptRecord.Step.ANSWERED;
import static dev.levee.core.chain.AttemptRecord.Step.FAILED;
import static dev.levee.core.chain.AttemptRecord.Step.OVER_MAX_RETRY_AFTER;
import static dev.levee.core.chain.ScriptedUpstream.fail;
import static dev.levee.core.chain.ScriptedUpstream.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.testing.ScriptedRandom;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Regression (sibling of {@link RetryAfterBeyondDeadlineRegressionTest}): a target that answered
 * 429 with a {@code retry-after} longer than {@code max-retry-after} (60 s here) was rightly not
 * waited for, yet the chain recorded nothing of it: its report said {@code "429 rate_limit_error
 * (1 call)"}, as with {@code max-retries: 0}. The give-up is now an {@link
 * AttemptRecord.Step#OVER_MAX_RETRY_AFTER} step on that target with the stated wait and the
 * policy's maximum, and its report says it was not retried and why. No jitter is drawn: a wait
 * that long is never sat out, however long the deadline.
 */
@Tag("regression")
class RetryAfterOverMaxRegressionTest extends ChainFixture {

  private static final Duration TWO_MINUTES = Duration.ofSeconds(120);

  @Test
  void aLoneTargetWhoseStatedWaitIsOverTheMaximumSaysWhyItWasNotRetried() {
    random = ScriptedRandom.of(); // no draw: nothing is waited
    upstream.on(A, fail(Failures.rateLimited(TWO_MINUTES)), ok("must not be asked"));
    long start = clock.nanos();

    ChainResult.Exhausted<String> exhausted = exhausted(run(Duration.ofMinutes(10), A));

    assertThat(clock.nanos()).as("the 120 s were not sat out").isEqualTo(start);
    assertThat(upstream.calls()).hasSize(1);
    assertThat(steps(exhausted)).containsExactly(FAILED, OVER_MAX_RETRY_AFTER);
    AttemptRecord gaveUp = exhausted.steps().get(1);
    assertThat(gaveUp.target()).isEqualTo(A);
    assertThat(gaveUp.called()).isFalse();
    assertThat(gaveUp.waitTooLong())
        .isEqualTo(new WaitTooLong.StatedOverMaxRetryAfter(TWO_MINUTES, Duration.ofSeconds(60)));
    assertThat(reports(exhausted)).containsExactly("anthropic/claude-a: 429 rate_limit_error "
        + "(1 call, then not retried: retry-after 120 s is longer than max-retry-after 60 s)");
    assertThat(exhausted.retryAfter()).as("still the stated wait").contains(TWO_MINUTES);
  }

  @Test
  void aFallbackAfterSuchAGiveUpKeepsTheStepThatExplainsIt() {
    random = ScriptedRandom.of();
    upstream.on(A, fail(Failures.rateLimited(TWO_MINUTES)));
    upstream.on(B, ok("from b"));

    ChainResult.Answered<String> answered = answered(run(A, B));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(steps(answered)).containsExactly(FAILED, OVER_MAX_RETRY_AFTER, ANSWERED);
    assertThat(answered.steps()).extracting(AttemptRecord::target).containsExactly(A, A, B);
  }

  @Test
  void aStatedWaitOfExactlyTheMaximumIsSatOutAndNoGiveUpIsRecorded() {
    random = ScriptedRandom.always(0.0);
    upstream.on(A, fail(Failures.rateLimited(Duration.ofSeconds(60))), ok("after the wait"));

    ChainResult.Answered<String> answered = answered(run(Duration.ofMinutes(2), A));

    assertThat(steps(answered)).containsExactly(FAILED, ANSWERED);
    assertThat(answered.steps().get(1).waited()).isEqualTo(Duration.ofSeconds(60));
    assertThat(answered.steps()).extracting(AttemptRecord::waitTooLong).containsOnlyNulls();
  }
}
