package dev.levee.core.chain;

import static dev.levee.core.chain.AttemptRecord.Step.ANSWERED;
import static dev.levee.core.chain.AttemptRecord.Step.BUDGET_DENIED;
import static dev.levee.core.chain.AttemptRecord.Step.FAILED;
import static dev.levee.core.chain.ScriptedUpstream.fail;
import static dev.levee.core.chain.ScriptedUpstream.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.budget.Budget;
import dev.levee.core.budget.RetryBudget;
import dev.levee.core.deadline.Deadline;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A retry budget per target (gRFC A6 throttles retries per server): A and B are configured and
 * have 10-token buckets of their own earning 0.5 per success; C is a model a client named itself
 * and draws on the 10-token overflow bucket. A request's first call on a bucket is free — the
 * primary's first call, and a fallback's (the next server's first call for this request) — and each
 * retry of a target spends a token of that target; a completed answer credits the target that gave it.
 */
class FallbackChainPerTargetBudgetTest extends ChainFixture {

  @BeforeEach
  void ownBuckets() {
    budgets = RetryBudgets.local(Set.of(A, B), 10, 0.5);
  }

  private double tokens(Target target) {
    return budgets.of(target).remaining();
  }

  private void drain(Target target) {
    Budget bucket = budgets.of(target);
    while (bucket.remaining() >= 1) {
      bucket.tryAcquire(); // spends every token without a denial
    }
  }

  @Test
  void aRetrySpendsATokenOfTheTargetItRetries() {
    upstream.on(A, fail(Failures.overloaded()), ok("a"));

    answered(run(A, B));

    assertThat(tokens(A)).isEqualTo(9.0);
    assertThat(tokens(B)).isEqualTo(10.0);
    assertThat(budgets.overflow().remaining()).isEqualTo(10.0);
  }

  @Test
  void aFallbackIsTheNextTargetsFirstCallAndSpendsNoToken() {
    upstream.on(A, fail(Failures.unauthorized()));
    upstream.on(B, ok("b"));

    answered(run(A, B));

    assertThat(tokens(A)).isEqualTo(10.0);
    assertThat(tokens(B)).isEqualTo(10.0);
  }

  @Test
  void aRetryOfTheFallbackTargetSpendsItsToken() {
    upstream.on(A, fail(Failures.unauthorized()));
    upstream.on(B, fail(Failures.serverError()), ok("b"));

    answered(run(A, B));

    assertThat(tokens(B)).isEqualTo(9.0);
  }

  /**
   * Regression (newcomer trial, session 9): with {@code [emu-529, emu-ok]} and the primary's circuit
   * not opening, each request's fallback cost the healthy target a token and earned it 0.5; after a
   * few requests its drained bucket refused the fallback and the alias failed.
   */
  @Test
  void aPrimaryThatFailsEveryRequestNeverDrainsItsHealthyFallback() {
    for (int i = 0; i < 50; i++) {
      clock.advance(Duration.ofSeconds(61)); // one failure in any 60 s: A's circuit never opens
      upstream.on(A, fail(Failures.unauthorized()));
      upstream.on(B, ok("b" + i));

      answered(run(A, B)).completion().success();
    }

    assertThat(tokens(B)).isEqualTo(10.0);
    assertThat(budgets.of(B).denied()).isZero();
  }

  @Test
  void aTargetWhoseBudgetIsDrainedIsNotRetriedButItsFallbackStillIs() {
    drain(A);
    upstream.on(A, fail(Failures.overloaded()));
    upstream.on(B, ok("b"));

    ChainResult.Answered<String> answered = answered(run(A, B));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(steps(answered)).containsExactly(FAILED, BUDGET_DENIED, ANSWERED);
    assertThat(upstream.callsTo(A)).hasSize(1);
    assertThat(tokens(B)).isEqualTo(10.0);
    assertThat(budgets.of(A).denied()).isEqualTo(1);
    assertThat(budgets.of(B).denied()).isZero();
  }

  @Test
  void aFailedTargetWhoseRetryItsBudgetRefusedSaysSoInItsReport() {
    drain(A);
    upstream.on(A, fail(Failures.overloaded()));
    upstream.on(B, fail(Failures.unauthorized()));

    ChainResult.Exhausted<String> exhausted = exhausted(run(A, B));

    assertThat(reports(exhausted)).containsExactly(
        A + ": 529 overloaded_error (1 call, then not retried: retry budget exhausted)",
        B + ": 401 authentication_error (1 call)");
  }

  @Test
  void aRetryRefusedAfterSomeRetriesCountsTheCallsItMade() {
    Budget bucket = budgets.of(A);
    while (bucket.remaining() >= 2) {
      bucket.tryAcquire(); // one token left: one retry, then none
    }
    upstream.on(A, fail(Failures.serverError()), fail(Failures.serverError()));

    ChainResult.Exhausted<String> exhausted = exhausted(run(A));

    assertThat(steps(exhausted)).containsExactly(FAILED, FAILED, BUDGET_DENIED);
    assertThat(reports(exhausted)).containsExactly(A + ": 500 api_error (2 calls, then not retried: retry budget exhausted)");
  }

  @Test
  void aFallbackTheBudgetRefusedIsStillNotTried() {
    budgets = RetryBudgets.one(new RetryBudget(1, 0)); // one bucket for both: the fallback spends
    budgets.of(A).tryAcquire();
    upstream.on(A, fail(Failures.unauthorized()));

    ChainResult.Exhausted<String> exhausted = exhausted(run(A, B));

    assertThat(reports(exhausted)).containsExactly(A + ": 401 authentication_error (1 call)",
        B + ": not tried: retry budget exhausted");
  }

  @Test
  void anotherTargetsDrainedBudgetDoesNotStopARetry() {
    drain(A);
    upstream.on(B, fail(Failures.serverError()), ok("b"));

    ChainResult.Answered<String> answered = answered(run(B));

    assertThat(steps(answered)).containsExactly(FAILED, ANSWERED);
    assertThat(tokens(B)).isEqualTo(9.0);
  }

  @Test
  void aCompletedAnswerCreditsTheBudgetOfTheTargetThatGaveIt() {
    budgets.of(A).tryAcquire();
    budgets.of(B).tryAcquire();
    upstream.on(A, ok("a"));

    answered(run(A, B)).completion().success();

    assertThat(tokens(A)).isEqualTo(9.5);
    assertThat(tokens(B)).isEqualTo(9.0);
  }

  @Test
  void targetsClientsNameThemselvesShareTheOverflowBucket() {
    Target d = Target.parse("anthropic/claude-d");
    upstream.on(C, fail(Failures.overloaded()), ok("c"));
    upstream.on(d, fail(Failures.overloaded()), ok("d"));

    answered(run(C));
    answered(run(d));

    assertThat(budgets.of(C)).isSameAs(budgets.overflow()).isSameAs(budgets.of(d));
    assertThat(budgets.overflow().remaining()).isEqualTo(8.0);
    assertThat(tokens(A)).isEqualTo(10.0);
    assertThat(tokens(B)).isEqualTo(10.0);
  }

  @Test
  void aDrainedOverflowBucketLeavesConfiguredTargetsTheirRetries() {
    drain(C);
    upstream.on(C, fail(Failures.overloaded()));
    upstream.on(A, fail(Failures.serverError()), ok("a"));

    exhausted(run(C));
    ChainResult.Answered<String> answered = answered(run(A));

    assertThat(steps(answered)).containsExactly(FAILED, ANSWERED);
  }

  @Test
  void aHedgeSpendsATokenOfItsOwnTarget() {
    upstream.on(A, context -> {
      clock.advance(Duration.ofSeconds(3));
      return context.control().aborted()
          ? AttemptResult.failed(Failures.cancelled(), null)
          : AttemptResult.success("late a");
    });
    upstream.on(B, ok("b"));

    ChainResult.Answered<String> answered = answered(chain().withHedging(clock, Runnable::run)
        .execute(List.of(A, B), Deadline.after(DEADLINE, clock), false, upstream, Duration.ofMillis(500)));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(tokens(A)).isEqualTo(10.0);
    assertThat(tokens(B)).isEqualTo(9.0);
  }

  @Test
  void aRecoveryWhoseTargetsBudgetIsDrainedGoesOnToTheNextTarget() {
    drain(A);
    upstream.on(B, ok("continued on b"));

    ChainResult.Answered<String> answered = answered(run(DEADLINE, true, A, B));

    assertThat(steps(answered)).containsExactly(BUDGET_DENIED, ANSWERED);
    assertThat(upstream.callsTo(A)).isEmpty();
    assertThat(tokens(B)).isEqualTo(9.0);
  }

  @Test
  void aLibraryUsersSingleBudgetIsEveryTargetsBucket() {
    RetryBudget one = new RetryBudget(3, 0);
    RetryBudgets shared = RetryBudgets.one(one);

    assertThat(shared.of(A)).isSameAs(one);
    assertThat(shared.of(C)).isSameAs(one);
    assertThat(shared.hasOwn(A)).isFalse();
    assertThat(shared.configured()).isEmpty();
  }
}
