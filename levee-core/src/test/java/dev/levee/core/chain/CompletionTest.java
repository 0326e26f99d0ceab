package dev.levee.core.chain;

import static dev.levee.core.chain.ScriptedUpstream.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitState;
import dev.levee.core.budget.RetryBudget;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Completing an answer settles its breaker permit exactly once and credits the budget on
 * success. Each test answers a half-open trial on A (the breaker closes after 1 trial success),
 * taking 1.2 s, with a spent budget that earns 0.5 per success.
 */
class CompletionTest extends ChainFixture {

  private static final Duration TOOK = Duration.ofMillis(1_200);

  private ChainResult.Answered<String> answer;

  @BeforeEach
  void answerATrial() {
    budget = new RetryBudget(1, 0.5);
    budget.tryAcquire();
    readyForTrial(A);
    upstream.on(A, upstream.after(TOOK, ok("streamed answer")));
    answer = answered(run(A));
  }

  @Test
  void theTrialIsHeldUntilTheAnswerIsCompleted() {
    assertThat(answer.completion().isDone()).isFalse();
    assertThat(breaker(A).state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(admitsACall(A)).isFalse();
    assertThat(observer.events).isEmpty();
  }

  @Test
  void aSuccessfulCompletionCountsAsATrialSuccessAndCreditsTheBudget() {
    answer.completion().success();

    assertThat(breaker(A).state()).isEqualTo(CircuitState.CLOSED);
    assertThat(budget.remaining()).isEqualTo(0.5);
    assertThat(observer.events).containsExactly(new RecordingObserver.Event(A, null, TOOK));
  }

  @Test
  void theObserverIsToldWhetherTheLatencyIsATimeToFirstToken() {
    answer.completion().success(); // ok(...): a whole answer
    upstream.on(B, context -> AttemptResult.streaming("a stream at its commit point"));
    answered(run(B)).completion().success();

    assertThat(observer.firstTokens).containsExactly(false, true);
  }

  @Test
  void aTrialThatBreaksAndIsRecoveredOnItsOwnTargetLeavesTheVerdictToTheRecovery() {
    Failure cut = Failure.of(FailureKind.CONNECTION, 0, "stream_cut", "stream ended before message_stop");

    answer.completion().failureRecoveredHere(cut);

    assertThat(answer.completion().isDone()).isTrue();
    assertThat(breaker(A).state()).as("not reopened by its own break").isEqualTo(CircuitState.HALF_OPEN);
    assertThat(admitsACall(A)).as("the recovery call may be the next trial").isTrue();
    assertThat(observer.events).containsExactly(new RecordingObserver.Event(A, FailureKind.CONNECTION, TOOK));
  }

  @Test
  void aFailedCompletionReopensTheBreakerAndCreditsNothing() {
    Failure cut = Failure.of(FailureKind.CONNECTION, 0, "stream_cut", "stream ended before message_stop");

    answer.completion().failure(cut);

    assertThat(breaker(A).state()).isEqualTo(CircuitState.OPEN);
    assertThat(budget.remaining()).isEqualTo(0.0);
    assertThat(observer.events).containsExactly(new RecordingObserver.Event(A, FailureKind.CONNECTION, TOOK));
  }

  @Test
  void aFailedCompletionThatSaysNothingAboutTheTargetOnlyFreesTheTrial() {
    answer.completion().failure(Failures.badRequest());

    assertThat(breaker(A).state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(admitsACall(A)).isTrue();
    assertThat(budget.remaining()).isEqualTo(0.0);
  }

  @Test
  void aCancelledCompletionFreesTheTrialWithoutAVerdictOrCredit() {
    answer.completion().cancelled();

    assertThat(breaker(A).state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(admitsACall(A)).isTrue();
    assertThat(budget.remaining()).isEqualTo(0.0);
    assertThat(observer.events).isEmpty();
  }

  @Test
  void onlyTheFirstCompletionCounts() {
    answer.completion().success();
    answer.completion().success();
    answer.completion().failure(Failures.overloaded());
    answer.completion().cancelled();

    assertThat(answer.completion().isDone()).isTrue();
    assertThat(breaker(A).state()).isEqualTo(CircuitState.CLOSED);
    assertThat(budget.remaining()).isEqualTo(0.5);
    assertThat(observer.events).hasSize(1);
  }
}
