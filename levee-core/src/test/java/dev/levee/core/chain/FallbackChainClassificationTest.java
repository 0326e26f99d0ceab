package dev.levee.core.chain;

import static dev.levee.core.chain.AttemptRecord.Step.BUDGET_DENIED;
import static dev.levee.core.chain.AttemptRecord.Step.FAILED;
import static dev.levee.core.chain.Failures.withShouldRetry;
import static dev.levee.core.chain.ScriptedUpstream.fail;
import static dev.levee.core.chain.ScriptedUpstream.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitState;
import dev.levee.core.budget.RetryBudget;
import dev.levee.core.retry.Failure;
import dev.levee.core.testing.ScriptedRandom;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** What each kind of failure makes the chain do next (DESIGN.md's taxonomy, in the loop). */
class FallbackChainClassificationTest extends ChainFixture {

  @Test
  void aBadRequestSurfacesAtOnceWithItsOwnStatusAndBody() {
    upstream.on(A, fail(Failures.badRequest()));
    upstream.on(B, ok("must not be asked"));

    ChainResult.Rejected<String> rejected = rejected(run(A, B));

    assertThat(rejected.target()).isEqualTo(A);
    assertThat(rejected.failure()).isEqualTo(Failures.badRequest());
    assertThat(rejected.failure().status()).isEqualTo(400);
    assertThat(rejected.response()).isEqualTo("claude-a: 400 body");
    assertThat(rejected.calls()).isEqualTo(1);
    assertThat(steps(rejected)).containsExactly(FAILED);
    assertThat(upstream.calls()).hasSize(1);
  }

  @Test
  void aBadRequestDoesNotPenaliseTheTargetsBreakerOrTheBudget() {
    upstream.on(A, fail(Failures.badRequest()), fail(Failures.badRequest()), fail(Failures.badRequest()));

    for (int request = 0; request < 3; request++) { // as many as open the breaker if they counted
      rejected(run(A));
    }

    assertThat(breaker(A).state()).isEqualTo(CircuitState.CLOSED);
    assertThat(breaker(A).snapshot().recentFailures()).isZero();
    assertThat(budget.remaining()).isEqualTo(10.0);
  }

  @Test
  void aBadRequestOnAHalfOpenTrialFreesTheTrialSlotWithoutReopening() {
    readyForTrial(A);
    upstream.on(A, fail(Failures.badRequest()));

    rejected(run(A));

    assertThat(breaker(A).state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(admitsACall(A)).isTrue();
  }

  @Test
  void badCredentialsMoveOnToTheNextTargetWithoutARetry() {
    random = ScriptedRandom.of();
    upstream.on(A, fail(Failures.unauthorized()));
    upstream.on(B, ok("from b"));
    long start = clock.nanos();

    ChainResult.Answered<String> answered = answered(run(A, B));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(upstream.callsTo(A)).hasSize(1);
    assertThat(clock.nanos()).isEqualTo(start);
    assertThat(breaker(A).snapshot().recentFailures()).isEqualTo(1);
  }

  @Test
  void aReachedSpendLimitMovesOnToTheNextTargetWithoutARetry() {
    random = ScriptedRandom.of();
    upstream.on(A, fail(Failures.spendLimit()));
    upstream.on(B, ok("from b"));

    ChainResult.Answered<String> answered = answered(run(A, B));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(upstream.callsTo(A)).hasSize(1);
    assertThat(breaker(A).snapshot().recentFailures()).isEqualTo(1);
  }

  @Test
  void xShouldRetryFalseOnAnOverloadStopsRetriesOfThatTargetButNotTheFallback() {
    random = ScriptedRandom.of();
    upstream.on(A, fail(withShouldRetry(Failures.overloaded(), false)));
    upstream.on(B, ok("from b"));
    long start = clock.nanos();

    ChainResult.Answered<String> answered = answered(run(A, B));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(upstream.callsTo(A)).hasSize(1);
    assertThat(clock.nanos()).isEqualTo(start);
  }

  @Test
  void xShouldRetryTrueOnABadRequestRetriesTheSameTarget() {
    upstream.on(A, fail(withShouldRetry(Failures.badRequest(), true)), ok("second time lucky"));

    ChainResult.Answered<String> answered = answered(run(A, B));

    assertThat(answered.target()).isEqualTo(A);
    assertThat(answered.response()).isEqualTo("second time lucky");
    assertThat(waits(answered)).containsExactly(Duration.ZERO, Duration.ofMillis(250)); // full jitter
    assertThat(breaker(A).snapshot().recentFailures()).isZero();
  }

  /**
   * Regression: once the retries the upstream asked for ran out, the client's own error was sent
   * to the next target, which the taxonomy forbids ("next target: never").
   */
  @Test
  @Tag("regression")
  void aBadRequestTheUpstreamAskedToRetryIsNeverSentToTheNextTarget() {
    Failure retryable400 = withShouldRetry(Failures.badRequest(), true);
    upstream.on(A, fail(retryable400), fail(retryable400), fail(retryable400));
    upstream.on(B, ok("must not be asked"));

    ChainResult.Rejected<String> rejected = rejected(run(A, B));

    assertThat(rejected.target()).isEqualTo(A);
    assertThat(rejected.response()).isEqualTo("claude-a: 400 body");
    assertThat(rejected.calls()).isEqualTo(3);
    assertThat(upstream.callsTo(B)).isEmpty();
  }

  @Test
  @Tag("regression")
  void aBadRequestWhoseRetryTheBudgetDeniesStillSurfacesAsItself() {
    budget = new RetryBudget(1, 0);
    Failure retryable400 = withShouldRetry(Failures.badRequest(), true);
    upstream.on(A, fail(retryable400), fail(retryable400));
    upstream.on(B, ok("must not be asked"));

    ChainResult.Rejected<String> rejected = rejected(run(A, B));

    assertThat(rejected.target()).isEqualTo(A);
    assertThat(rejected.calls()).isEqualTo(2);
    assertThat(steps(rejected)).containsExactly(FAILED, FAILED, BUDGET_DENIED);
  }

  @Test
  void aBadRequestFromAFallbackTargetSurfacesWithThatTargetsStatusAndBody() {
    upstream.on(A, fail(withShouldRetry(Failures.overloaded(), false)));
    upstream.on(B, fail(Failures.badRequest()));
    upstream.on(C, ok("must not be asked"));

    ChainResult.Rejected<String> rejected = rejected(run(A, B, C));

    assertThat(rejected.target()).isEqualTo(B);
    assertThat(rejected.response()).isEqualTo("claude-b: 400 body");
    assertThat(rejected.calls()).isEqualTo(2);
  }

  @Test
  void whenEveryDeploymentRefusesTheKeyTheResultNamesEach() {
    upstream.on(A, fail(Failures.unauthorized()));
    upstream.on(B, fail(Failures.unauthorized()));

    ChainResult.Exhausted<String> exhausted = exhausted(run(A, B));

    assertThat(reports(exhausted)).containsExactly(
        "anthropic/claude-a: 401 authentication_error (1 call)",
        "bedrock/claude-b: 401 authentication_error (1 call)");
    assertThat(exhausted.lastResponse()).isEqualTo("claude-b: 401 body");
  }
}
