package dev.levee.core.chain;

import static dev.levee.core.chain.AttemptRecord.Step.BUDGET_DENIED;
import static dev.levee.core.chain.AttemptRecord.Step.FAILED;
import static dev.levee.core.chain.Failures.withShouldRetry;
import static dev.levee.core.chain.ScriptedUpstream.fail;
import static dev.levee.core.chain.ScriptedUpstream.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitState;
import dev.levee.core.budget.RetryBudget;
import org.junit.jupiter.api.Test;

/**
 * The retry budget in the chain: every call after the request's first needs a token. Here every
 * target draws on one bucket ({@link RetryBudgets#one}); {@link FallbackChainPerTargetBudgetTest}
 * gives targets their own.
 */
class FallbackChainBudgetTest extends ChainFixture {

  /** A spent budget of 1 token that earns 0.5 per success. */
  private static RetryBudget empty() {
    RetryBudget budget = new RetryBudget(1, 0.5);
    budget.tryAcquire();
    return budget;
  }

  @Test
  void everyCallAfterTheFirstSpendsOneTokenWhicheverTargetItGoesTo() {
    upstream.on(A, fail(withShouldRetry(Failures.overloaded(), false)));
    upstream.on(B, fail(Failures.unauthorized()));
    upstream.on(C, ok("from c"));

    answered(run(A, B, C));

    assertThat(budget.remaining()).isEqualTo(8.0);
  }

  @Test
  void anExhaustedBudgetDeniesTheRetryAndThenTheFallbackThatDrawsOnIt() {
    budget = new RetryBudget(1, 0);
    upstream.on(A, fail(Failures.overloaded()), fail(Failures.overloaded()));
    upstream.on(B, ok("must not be asked"));

    ChainResult.Exhausted<String> exhausted = exhausted(run(A, B));

    assertThat(steps(exhausted)).containsExactly(FAILED, FAILED, BUDGET_DENIED, BUDGET_DENIED);
    assertThat(upstream.callsTo(B)).isEmpty();
    assertThat(exhausted.lastFailure()).isEqualTo(Failures.overloaded());
    assertThat(exhausted.allOpen()).isFalse();
    assertThat(reports(exhausted)).containsExactly(
        "anthropic/claude-a: 529 overloaded_error (2 calls, then not retried: retry budget exhausted)",
        "bedrock/claude-b: not tried: retry budget exhausted");
    assertThat(budget.denied()).isEqualTo(2);
  }

  @Test
  void aCallTheBudgetDeniedDoesNotCountForTheBreaker() {
    budget = new RetryBudget(1, 0);
    upstream.on(A, fail(Failures.overloaded()), fail(Failures.overloaded()));

    run(A);

    assertThat(breaker(A).snapshot().recentFailures()).isEqualTo(2);
  }

  @Test
  void anExhaustedBudgetStopsAFallbackToo() {
    budget = empty();
    upstream.on(A, fail(Failures.unauthorized()));
    upstream.on(B, ok("must not be asked"));

    ChainResult.Exhausted<String> exhausted = exhausted(run(A, B));

    assertThat(upstream.callsTo(B)).isEmpty();
    assertThat(reports(exhausted)).containsExactly(
        "anthropic/claude-a: 401 authentication_error (1 call)",
        "bedrock/claude-b: not tried: retry budget exhausted");
  }

  @Test
  void aTrialTheBudgetDeniedFreesItsSlot() {
    budget = empty();
    readyForTrial(A);

    ChainResult.Exhausted<String> exhausted = exhausted(run(DEADLINE, true, A));

    assertThat(steps(exhausted)).containsExactly(BUDGET_DENIED);
    assertThat(breaker(A).state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(admitsACall(A)).isTrue();
  }

  @Test
  void aFirstCallThatCountsAsARetrySpendsAToken() {
    budget = new RetryBudget(2, 0);
    upstream.on(A, ok("continued"));

    answered(run(DEADLINE, true, A));

    assertThat(budget.remaining()).isEqualTo(1.0);
  }

  @Test
  void aFirstCallThatCountsAsARetryIsNotMadeWithAnEmptyBudget() {
    budget = empty();

    ChainResult.Exhausted<String> exhausted = exhausted(run(DEADLINE, true, A, B));

    assertThat(upstream.calls()).isEmpty();
    assertThat(exhausted.lastFailure()).isNull();
    assertThat(exhausted.allOpen()).isFalse();
    assertThat(reports(exhausted)).containsExactly(
        "anthropic/claude-a: not tried: retry budget exhausted",
        "bedrock/claude-b: not tried: retry budget exhausted");
  }

  @Test
  void anAnswerDoesNotCreditTheBudgetBeforeItIsCompleted() {
    budget = empty();
    upstream.on(A, ok("answer"));

    answered(run(A));

    assertThat(budget.remaining()).isEqualTo(0.0);
  }
}
