package dev.levee.core.chain;

import static dev.levee.core.chain.AttemptRecord.Step.FAILED;
import static dev.levee.core.chain.Failures.withShouldRetry;
import static dev.levee.core.chain.ScriptedUpstream.fail;
import static dev.levee.core.chain.ScriptedUpstream.interrupted;
import static dev.levee.core.chain.ScriptedUpstream.ok;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.retry.FailureKind;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The client going away: Cancelled, no fallback, and never a breaker penalty. */
class FallbackChainCancellationTest extends ChainFixture {

  @AfterEach
  void clearInterruptFlag() {
    Thread.interrupted();
  }

  private void sleeperIsInterrupted() {
    sleeper = duration -> {
      throw new InterruptedException("client went away during the wait");
    };
  }

  @Test
  void anInterruptedCallEndsTheRequestAsCancelledAndKeepsTheInterrupt() {
    upstream.on(A, interrupted());
    upstream.on(B, ok("must not be asked"));

    cancelled(run(A, B));

    assertThat(Thread.interrupted()).as("interrupt flag restored").isTrue();
    assertThat(upstream.calls()).extracting(AttemptContext::target).containsExactly(A);
    assertThat(budget.remaining()).isEqualTo(10.0);
  }

  /** Regression: the interrupted call was missing from the steps, so calls() said 0. */
  @Test
  @Tag("regression")
  void anInterruptedCallIsAmongTheStepsAndCallsMade() {
    upstream.on(A, fail(Failures.overloaded()), upstream.after(Duration.ofMillis(700), interrupted()));

    ChainResult.Cancelled<String> cancelled = cancelled(run(A));

    assertThat(cancelled.calls()).isEqualTo(2);
    assertThat(steps(cancelled)).containsExactly(FAILED, FAILED);
    assertThat(cancelled.steps().getLast().failure().kind()).isEqualTo(FailureKind.CANCELLED);
    assertThat(cancelled.steps().getLast().took()).isEqualTo(Duration.ofMillis(700));
  }

  @Test
  void anInterruptedTrialFreesItsSlotWithoutReopeningTheBreaker() {
    readyForTrial(A);
    upstream.on(A, interrupted());

    cancelled(run(A));

    assertThat(breaker(A).state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(admitsACall(A)).isTrue();
  }

  @Test
  void aCancelledFailureEndsTheRequestWithoutFallbackOrBreakerPenalty() {
    ((CircuitBreaker.Admitted) breaker(A).tryAcquire()).permit().failure();
    ((CircuitBreaker.Admitted) breaker(A).tryAcquire()).permit().failure(); // one short of opening
    upstream.on(A, fail(Failures.cancelled()));
    upstream.on(B, ok("must not be asked"));

    ChainResult.Cancelled<String> cancelled = cancelled(run(A, B));

    assertThat(steps(cancelled)).containsExactly(FAILED);
    assertThat(upstream.callsTo(B)).isEmpty();
    assertThat(breaker(A).state()).isEqualTo(CircuitState.CLOSED);
    assertThat(breaker(A).snapshot().recentFailures()).isEqualTo(2);
    assertThat(observer.events).isEmpty();
  }

  @Test
  void aCancelledFailureIsNotRetriedEvenIfTheUpstreamSaysSo() {
    upstream.on(A, fail(withShouldRetry(Failures.cancelled(), true)), ok("must not be asked"));

    cancelled(run(A));

    assertThat(upstream.calls()).hasSize(1);
  }

  @Test
  void aCancelledTrialFreesItsSlotWithoutReopeningTheBreaker() {
    readyForTrial(A);
    upstream.on(A, fail(Failures.cancelled()));

    cancelled(run(A));

    assertThat(breaker(A).state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(admitsACall(A)).isTrue();
  }

  @Test
  void anInterruptDuringABackoffWaitEndsTheRequestAsCancelled() {
    sleeperIsInterrupted();
    upstream.on(A, fail(Failures.overloaded()), ok("must not be asked"));
    upstream.on(B, ok("must not be asked"));

    ChainResult.Cancelled<String> cancelled = cancelled(run(A, B));

    assertThat(Thread.interrupted()).isTrue();
    assertThat(steps(cancelled)).containsExactly(FAILED);
    assertThat(upstream.calls()).hasSize(1);
    assertThat(breaker(A).snapshot().recentFailures()).as("only the real failure counts").isEqualTo(1);
  }

  @Test
  void anInterruptDuringAWaitAfterATrialThatSaidNothingLeavesTheTrialSlotFree() {
    readyForTrial(A);
    sleeperIsInterrupted();
    upstream.on(A, fail(withShouldRetry(Failures.badRequest(), true)));

    cancelled(run(A));

    assertThat(breaker(A).state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(admitsACall(A)).isTrue();
  }

  @Test
  void aCallThatThrowsPropagatesAndReleasesItsTrialSlot() {
    readyForTrial(A);
    upstream.on(A, context -> {
      throw new IllegalStateException("bug in the protocol layer");
    });

    assertThatThrownBy(() -> run(A)).isInstanceOf(IllegalStateException.class);

    assertThat(breaker(A).state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(admitsACall(A)).isTrue();
  }
}
