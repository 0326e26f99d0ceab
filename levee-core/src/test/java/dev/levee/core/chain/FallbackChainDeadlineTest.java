package dev.levee.core.chain;

import static dev.levee.core.chain.AttemptRecord.Step.FAILED;
import static dev.levee.core.chain.ScriptedUpstream.fail;
import static dev.levee.core.chain.ScriptedUpstream.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.AttemptRecord.Step;
import dev.levee.core.testing.ScriptedRandom;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** One deadline bounds every call and wait (attempt timeout 20 s, min-attempt-time 100 ms). */
class FallbackChainDeadlineTest extends ChainFixture {

  @Test
  void anAttemptGetsTheAttemptTimeoutOrTheTimeLeftWhicheverIsShorter() {
    upstream.on(A, upstream.after(Duration.ofSeconds(10), fail(Failures.serverError())), ok("ok"));

    answered(run(Duration.ofSeconds(25), A));

    // second call: 25 s − 10 s (first call) − 250 ms (backoff) = 14.75 s left
    assertThat(upstream.calls()).extracting(AttemptContext::timeout)
        .containsExactly(Duration.ofSeconds(20), Duration.ofMillis(14_750));
  }

  @Test
  void aDeadlineShorterThanTheAttemptTimeoutBoundsTheFirstCall() {
    upstream.on(A, ok("ok"));

    answered(run(Duration.ofSeconds(15), A));

    assertThat(upstream.calls()).extracting(AttemptContext::timeout).containsExactly(Duration.ofSeconds(15));
  }

  @Test
  void noAttemptIsStartedWithLessThanTheMinimumAttemptTimeLeft() {
    upstream.on(A, upstream.after(Duration.ofMillis(950), fail(Failures.serverError())));
    upstream.on(B, ok("must not be asked"));
    upstream.on(C, ok("must not be asked"));
    long start = clock.nanos();

    ChainResult.Exhausted<String> exhausted = exhausted(run(Duration.ofSeconds(1), A, B, C));

    assertThat(upstream.calls()).extracting(AttemptContext::target).containsExactly(A);
    assertThat(steps(exhausted)).as("A not retried, B not tried").containsExactly(FAILED, Step.DEADLINE, Step.DEADLINE);
    assertThat(clock.nanos() - start).as("the backoff that did not fit was not slept")
        .isEqualTo(Duration.ofMillis(950).toNanos());
    assertThat(reports(exhausted)).containsExactly(
        "anthropic/claude-a: 500 api_error (1 call, then not retried: "
            + "a backoff of 250 ms and min-attempt-time 100 ms do not fit in the 50 ms left of the deadline)",
        "bedrock/claude-b: not tried: deadline reached",
        "vertex/claude-c: not tried");
  }

  /** Regression: with exactly min-attempt-time left, no attempt was started. */
  @Test
  @Tag("regression")
  void anAttemptIsStartedWithExactlyTheMinimumAttemptTimeLeft() {
    upstream.on(A, upstream.after(Duration.ofMillis(900), fail(Failures.serverError())));
    upstream.on(B, ok("just in time"));

    ChainResult.Answered<String> answered = answered(run(Duration.ofSeconds(1), A, B));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(upstream.callsTo(B)).extracting(AttemptContext::timeout).containsExactly(Duration.ofMillis(100));
  }

  @Test
  void aDeadlineTooShortForAnyAttemptMakesNoCall() {
    ChainResult.Exhausted<String> exhausted = exhausted(run(Duration.ofMillis(50), A, B));

    assertThat(upstream.calls()).isEmpty();
    assertThat(steps(exhausted)).containsExactly(Step.DEADLINE);
    assertThat(exhausted.allOpen()).isFalse();
    assertThat(reports(exhausted)).containsExactly(
        "anthropic/claude-a: not tried: deadline reached",
        "bedrock/claude-b: not tried");
  }

  @Test
  void aStatedWaitTheDeadlineCannotHoldSendsTheRequestToTheNextTargetAtOnce() {
    upstream.on(A, fail(Failures.rateLimited(Duration.ofSeconds(10))));
    upstream.on(B, ok("from b"));
    long start = clock.nanos();

    ChainResult.Answered<String> answered = answered(run(Duration.ofSeconds(10), A, B));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(clock.nanos()).isEqualTo(start);
  }

  @Test
  void theJitteredStatedWaitPlusTheMinimumAttemptMustFit() {
    // 9.5 s + 5% jitter = 9.975 s; with 100 ms for the attempt that is past a 10 s deadline
    upstream.on(A, fail(Failures.rateLimited(Duration.ofMillis(9_500))));
    upstream.on(B, ok("from b"));

    assertThat(answered(run(Duration.ofSeconds(10), A, B)).target()).isEqualTo(B);
  }

  @Test
  void aStatedWaitThatFitsTheDeadlineIsSatOut() {
    random = ScriptedRandom.always(0.0);
    upstream.on(A, fail(Failures.rateLimited(Duration.ofMillis(9_500))), ok("after the wait"));
    long start = clock.nanos();

    ChainResult.Answered<String> answered = answered(run(Duration.ofSeconds(10), A, B));

    assertThat(answered.target()).isEqualTo(A);
    assertThat(clock.nanos() - start).isEqualTo(Duration.ofMillis(9_500).toNanos());
    assertThat(upstream.calls()).extracting(AttemptContext::timeout)
        .containsExactly(Duration.ofSeconds(10), Duration.ofMillis(500));
  }

  @Test
  void aBackoffWaitTheDeadlineCannotHoldSendsTheRequestToTheNextTargetAtOnce() {
    // after 2 s, the overload wait of 1.5 s would leave less than 100 ms of a 3 s deadline
    upstream.on(A, upstream.after(Duration.ofSeconds(2), fail(Failures.overloaded())));
    upstream.on(B, ok("from b"));

    ChainResult.Answered<String> answered = answered(run(Duration.ofSeconds(3), A, B));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(upstream.callsTo(B)).extracting(AttemptContext::timeout).containsExactly(Duration.ofSeconds(1));
  }
}
