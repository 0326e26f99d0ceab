package dev.levee.core.chain;

import static dev.levee.core.chain.AttemptRecord.Step.ANSWERED;
import static dev.levee.core.chain.AttemptRecord.Step.FAILED;
import static dev.levee.core.chain.ScriptedUpstream.fail;
import static dev.levee.core.chain.ScriptedUpstream.failWithoutResponse;
import static dev.levee.core.chain.ScriptedUpstream.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitState;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.testing.ScriptedRandom;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Retries of the same target: how many, and how long the chain waits between them. */
class FallbackChainRetryTest extends ChainFixture {

  @Test
  void aTargetThatAnswersAtOnceIsCalledOnceWithoutWaitingOrSpendingBudget() {
    random = ScriptedRandom.of(); // no jitter may be drawn
    upstream.on(A, ok("hello from a"));
    long start = clock.nanos();

    ChainResult.Answered<String> answered = answered(run(A, B));

    assertThat(answered.response()).isEqualTo("hello from a");
    assertThat(answered.target()).isEqualTo(A);
    assertThat(answered.fallback()).isFalse();
    assertThat(steps(answered)).containsExactly(ANSWERED);
    assertThat(upstream.calls()).singleElement().satisfies(call -> {
      assertThat(call.target()).isEqualTo(A);
      assertThat(call.call()).isEqualTo(1);
      assertThat(call.retry()).isZero();
      assertThat(call.fallback()).isFalse();
      assertThat(call.timeout()).isEqualTo(Duration.ofSeconds(20));
    });
    assertThat(clock.nanos()).isEqualTo(start);
    assertThat(budget.remaining()).isEqualTo(10.0);
  }

  @Test
  void anOverloadedTargetIsRetriedAfterTheWiderOverloadWaits() {
    random = ScriptedRandom.of(0.0, 0.75);
    upstream.on(A, fail(Failures.overloaded()), fail(Failures.overloaded()), ok("finally"));
    long start = clock.nanos();

    ChainResult.Answered<String> answered = answered(run(A, B));

    // retry 0: 2 · 500 ms · 2^0 · (1 + 0)    = 1 s
    // retry 1: 2 · 500 ms · 2^1 · (1 + 0.75) = 3.5 s
    assertThat(answered.response()).isEqualTo("finally");
    assertThat(steps(answered)).containsExactly(FAILED, FAILED, ANSWERED);
    assertThat(waits(answered)).containsExactly(Duration.ZERO, Duration.ofSeconds(1), Duration.ofMillis(3_500));
    assertThat(Duration.ofNanos(clock.nanos() - start)).isEqualTo(Duration.ofMillis(4_500));
    assertThat(upstream.calls()).extracting(AttemptContext::retry).containsExactly(0, 1, 2);
    assertThat(upstream.calls()).extracting(AttemptContext::call).containsExactly(1, 2, 3);
    assertThat(upstream.calls()).extracting(AttemptContext::fallback).containsOnly(false);
  }

  @Test
  void eachRetryOfAnOverloadedTargetSpendsABudgetTokenAndCountsForItsBreaker() {
    upstream.on(A, fail(Failures.overloaded()), fail(Failures.overloaded()), ok("finally"));

    run(A, B);

    assertThat(budget.remaining()).isEqualTo(8.0);
    assertThat(breaker(A).state()).isEqualTo(CircuitState.CLOSED);
    assertThat(breaker(A).snapshot().recentFailures()).isEqualTo(2);
    assertThat(observer.events).extracting(RecordingObserver.Event::failure)
        .containsExactly(FailureKind.OVERLOADED, FailureKind.OVERLOADED);
  }

  @Test
  void aServerErrorIsRetriedAfterAFullJitterWait() {
    upstream.on(A, fail(Failures.serverError()), fail(Failures.serverError()), ok("ok"));

    ChainResult<String> result = run(A);

    // U = 0.5 of min(8 s, 500 ms · 2^n): 250 ms, then 500 ms
    assertThat(waits(result)).containsExactly(Duration.ZERO, Duration.ofMillis(250), Duration.ofMillis(500));
  }

  @ParameterizedTest(name = "U = {0} -> waits {1} ms")
  @CsvSource({"0.0, 2000", "0.5, 2100", "0.75, 2150"})
  void aRateLimitedTargetIsRetriedAfterTheStatedWaitPlusJitter(double u, long expectedMs) {
    random = ScriptedRandom.always(u);
    upstream.on(A, fail(Failures.rateLimited(Duration.ofSeconds(2))), ok("ok"));
    long start = clock.nanos();

    ChainResult<String> result = run(A, B);

    assertThat(answered(result).target()).isEqualTo(A);
    assertThat(waits(result)).containsExactly(Duration.ZERO, Duration.ofMillis(expectedMs));
    assertThat(clock.nanos() - start).isEqualTo(Duration.ofMillis(expectedMs).toNanos());
  }

  @Test
  void theJitterOnAStatedWaitOfTwoSecondsStaysBelowTwoPointTwo() {
    random = ScriptedRandom.always(ScriptedRandom.ALMOST_ONE);
    upstream.on(A, fail(Failures.rateLimited(Duration.ofSeconds(2))), ok("ok"));

    ChainResult<String> result = run(A);

    assertThat(waits(result).get(1)).isGreaterThanOrEqualTo(Duration.ofSeconds(2)).isLessThan(Duration.ofMillis(2_200));
  }

  @Test
  void aStatedWaitOverTheMaximumSendsTheRequestToTheNextTargetWithoutWaiting() {
    random = ScriptedRandom.of();
    upstream.on(A, fail(Failures.rateLimited(Duration.ofSeconds(61))));
    upstream.on(B, ok("from b"));
    long start = clock.nanos();

    ChainResult.Answered<String> answered = answered(run(A, B));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(answered.fallback()).isTrue();
    assertThat(clock.nanos()).isEqualTo(start);
    assertThat(upstream.callsTo(A)).hasSize(1);
    assertThat(upstream.callsTo(B)).singleElement().satisfies(call -> {
      assertThat(call.call()).isEqualTo(2);
      assertThat(call.retry()).isZero();
      assertThat(call.fallback()).isTrue();
    });
  }

  @Test
  void afterMaxRetriesTheNextTargetIsTried() {
    upstream.on(A, fail(Failures.serverError()), fail(Failures.serverError()), fail(Failures.serverError()));
    upstream.on(B, ok("from b"));

    ChainResult.Answered<String> answered = answered(run(A, B));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(upstream.callsTo(A)).hasSize(3);
    assertThat(upstream.callsTo(B)).extracting(AttemptContext::call).containsExactly(4);
    assertThat(waits(answered))
        .containsExactly(Duration.ZERO, Duration.ofMillis(250), Duration.ofMillis(500), Duration.ZERO);
    assertThat(budget.remaining()).isEqualTo(7.0);
  }

  @Test
  void withNoRetriesEachTargetIsCalledOnce() {
    policy = policy(0);
    random = ScriptedRandom.of();
    upstream.on(A, fail(Failures.serverError()));
    upstream.on(B, ok("from b"));

    ChainResult.Answered<String> answered = answered(run(A, B));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(upstream.calls()).extracting(AttemptContext::target).containsExactly(A, B);
  }

  @Test
  void whenEveryTargetFailsTheResultListsEachTargetsLastFailure() {
    upstream.on(A, fail(Failures.overloaded()), fail(Failures.overloaded()), fail(Failures.overloaded()));
    upstream.on(B, fail(Failures.overloaded()), fail(Failures.overloaded()), fail(Failures.serverError()));

    ChainResult.Exhausted<String> exhausted = exhausted(run(A, B));

    assertThat(exhausted.calls()).isEqualTo(6);
    assertThat(reports(exhausted)).as("each third failure opened its breaker").containsExactly(
        "anthropic/claude-a: 529 overloaded_error (3 calls, then its circuit opened: 30 s left)",
        "bedrock/claude-b: 500 api_error (3 calls, then its circuit opened: 30 s left)");
    assertThat(exhausted.lastFailure()).isEqualTo(Failures.serverError());
    assertThat(exhausted.lastResponse()).isEqualTo("claude-b: 500 body");
    assertThat(exhausted.allOpen()).isFalse();
    assertThat(exhausted.retryAfter()).isEmpty();
  }

  @Test
  void aTargetThatNeverAnsweredIsRetriedAndReportedWithoutAStatus() {
    upstream.on(A, failWithoutResponse(Failures.timeout()), failWithoutResponse(Failures.timeout()),
        failWithoutResponse(Failures.timeout()));

    ChainResult.Exhausted<String> exhausted = exhausted(run(A));

    assertThat(exhausted.calls()).isEqualTo(3);
    assertThat(reports(exhausted)).containsExactly("anthropic/claude-a: timeout (3 calls, then its circuit opened: 30 s left)");
    assertThat(exhausted.lastResponse()).isNull();
    assertThat(exhausted.lastFailure().kind()).isEqualTo(FailureKind.TIMEOUT);
  }
}
