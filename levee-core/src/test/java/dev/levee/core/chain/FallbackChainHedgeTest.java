package dev.levee.core.chain;

import static dev.levee.core.chain.AttemptRecord.Step.ANSWERED;
import static dev.levee.core.chain.AttemptRecord.Step.CANCELLED;
import static dev.levee.core.chain.AttemptRecord.Step.FAILED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitState;
import dev.levee.core.budget.RetryBudget;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.FailureKind;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Hedged requests (issue 10): the first call that has not begun to answer after the delay gets a
 * twin on the next target; the first to answer wins, the other is aborted at once and its permit
 * settled without a verdict. Virtual time throughout: the hedge timer fires while a scripted call
 * advances the {@link dev.levee.core.time.ManualClock}; with a direct executor the hedge runs on
 * that same thread, so each story is deterministic.
 */
class FallbackChainHedgeTest extends ChainFixture {

  static final Duration AFTER = Duration.ofMillis(500);
  static final Executor DIRECT = Runnable::run;

  final AtomicLong abortedAt = new AtomicLong(-1);

  ChainResult<String> hedged(Executor calls, Duration deadline, Duration after, Target... targets) {
    return chain().withHedging(clock, calls)
        .execute(List.of(targets), Deadline.after(deadline, clock), false, upstream, after);
  }

  ChainResult<String> hedged(Target... targets) {
    return hedged(DIRECT, DEADLINE, AFTER, targets);
  }

  /** Silent for {@code silent} (unless aborted first), then answers {@code body}; notes when it was aborted. */
  ScriptedUpstream.Reply silentThenOk(Duration silent, String body) {
    return context -> {
      context.control().onAbort(() -> abortedAt.set(clock.nanos()));
      clock.advance(silent);
      return context.control().aborted()
          ? AttemptResult.failed(Failures.cancelled(), null)
          : AttemptResult.success(body);
    };
  }

  /** Silent for {@code silent}, then fails with a timeout. */
  ScriptedUpstream.Reply silentThenTimeout(Duration silent) {
    return context -> {
      clock.advance(silent);
      return AttemptResult.failed(context.control().aborted() ? Failures.cancelled() : Failures.timeout(), null);
    };
  }

  @Test
  void aSilentFirstCallGetsAHedgeAfterTheDelayAndTheHedgeWinsAtOnce() {
    long start = clock.nanos();
    upstream.on(A, silentThenOk(Duration.ofSeconds(3), "late a"));
    upstream.on(B, ScriptedUpstream.ok("b"));

    ChainResult.Answered<String> answered = answered(hedged(A, B));

    assertThat(answered.response()).isEqualTo("b");
    assertThat(answered.target()).isEqualTo(B);
    assertThat(answered.fallback()).isTrue();
    assertThat(steps(answered)).containsExactly(CANCELLED, ANSWERED);
    assertThat(answered.steps()).extracting(AttemptRecord::hedge).containsExactly(false, true);
    assertThat(answered.calls()).isEqualTo(2);
    assertThat(Duration.ofNanos(abortedAt.get() - start)).as("the first call is closed when the hedge answers")
        .isEqualTo(AFTER);
    AttemptContext hedge = upstream.callsTo(B).getFirst();
    assertThat(hedge.call()).isEqualTo(2);
    assertThat(hedge.fallback()).isTrue();
    assertThat(budget.remaining()).as("the hedge spent one token").isEqualTo(9.0);
  }

  @Test
  void theLosingFirstCallIsNoFailureOfItsTarget() {
    upstream.on(A, silentThenOk(Duration.ofSeconds(3), "late a"));
    upstream.on(B, ScriptedUpstream.ok("b"));

    answered(hedged(A, B)).completion().success();

    assertThat(breaker(A).snapshot().recentFailures()).as("the aborted call counted neither way").isZero();
    assertThat(observer.events).extracting(RecordingObserver.Event::target).containsExactly(B);
  }

  @Test
  void aFirstCallThatBeginsToAnswerBeforeTheDelayIsNotHedged() {
    upstream.on(A, context -> {
      clock.advance(Duration.ofMillis(200));
      context.control().firstByte(); // the response head is here; the body takes long
      clock.advance(Duration.ofSeconds(3));
      return AttemptResult.success("a");
    });

    ChainResult.Answered<String> answered = answered(hedged(A, B));

    assertThat(answered.target()).isEqualTo(A);
    assertThat(upstream.callsTo(B)).isEmpty();
    assertThat(budget.remaining()).isEqualTo(10.0);
    assertThat(clock.pending()).as("the hedge timer was cancelled").isZero();
  }

  @Test
  void aHedgeNeedsARetryBudgetToken() {
    budget = new RetryBudget(1, 0);
    assertThat(budget.tryAcquire()).isTrue(); // drained
    upstream.on(A, silentThenOk(Duration.ofSeconds(3), "a"));

    ChainResult.Answered<String> answered = answered(hedged(A, B));

    assertThat(answered.target()).isEqualTo(A);
    assertThat(upstream.callsTo(B)).isEmpty();
    assertThat(admitsACall(B)).as("the hedge's permit was given back").isTrue();
  }

  /**
   * Regression (models-api): a hedge the retry budget refused left no step, so nothing downstream
   * (access log, {@code levee_hedges_total}, traces) could tell it from a request whose first call
   * answered before the delay; a refused retry is a {@code BUDGET_DENIED} step. The refused hedge
   * is one too, marked as the hedge, after the first call's answer, with no call made.
   */
  @Test
  void aHedgeTheBudgetRefusesIsABudgetDeniedHedgeStep() {
    budget = new RetryBudget(1, 0);
    assertThat(budget.tryAcquire()).isTrue(); // drained
    upstream.on(A, silentThenOk(Duration.ofSeconds(3), "a"));

    ChainResult.Answered<String> answered = answered(hedged(A, B));

    assertThat(steps(answered)).containsExactly(ANSWERED, AttemptRecord.Step.BUDGET_DENIED);
    assertThat(answered.steps().get(1).target()).isEqualTo(B);
    assertThat(answered.steps()).extracting(AttemptRecord::hedge).containsExactly(false, true);
    assertThat(answered.calls()).isEqualTo(1);
  }

  @Test
  void aHedgeStoppedByAnOpenCircuitOrTheDeadlineLeavesNoStep() {
    open(B);
    upstream.on(A, silentThenOk(Duration.ofSeconds(1), "a"));

    assertThat(steps(answered(hedged(A, B)))).containsExactly(ANSWERED);
  }

  @Test
  void aHedgeNeverStartsPastTheDeadline() {
    // 600 ms deadline, min-attempt-time 100 ms: at 550 ms too little is left to start a call
    upstream.on(A, silentThenTimeout(Duration.ofMillis(700)));

    ChainResult<String> result = hedged(DIRECT, Duration.ofMillis(600), Duration.ofMillis(550), A, B);

    assertThat(upstream.callsTo(B)).isEmpty();
    assertThat(budget.remaining()).isEqualTo(10.0);
    assertThat(steps(result)).containsExactly(FAILED, AttemptRecord.Step.DEADLINE);
  }

  @Test
  void aHedgeIsNotStartedOnATargetWhoseCircuitIsOpen() {
    open(B);
    upstream.on(A, silentThenOk(Duration.ofSeconds(1), "a"));

    assertThat(answered(hedged(A, B)).target()).isEqualTo(A);
    assertThat(upstream.callsTo(B)).isEmpty();
    assertThat(budget.remaining()).isEqualTo(10.0);
  }

  @Test
  void aHedgeThatFailsIsAFailureOfItsTargetAndTheFirstCallStillAnswers() {
    upstream.on(A, silentThenOk(Duration.ofSeconds(1), "a"));
    upstream.on(B, ScriptedUpstream.fail(Failures.overloaded()));

    ChainResult.Answered<String> answered = answered(hedged(A, B));

    assertThat(answered.target()).isEqualTo(A);
    assertThat(steps(answered)).containsExactly(ANSWERED, FAILED);
    assertThat(answered.steps().get(1).hedge()).isTrue();
    assertThat(abortedAt.get()).as("the first call was never aborted").isEqualTo(-1);
    assertThat(breaker(B).snapshot().recentFailures()).isEqualTo(1);
    assertThat(observer.events).extracting(RecordingObserver.Event::failure).containsExactly(FailureKind.OVERLOADED);
  }

  @Test
  void whenBothFailTheChainGoesOnFromTheFirstCallsFailureAndNeverHedgesTwice() {
    upstream.on(A, silentThenTimeout(Duration.ofSeconds(3)));
    upstream.on(B, ScriptedUpstream.fail(Failures.overloaded()),
        silentThenOk(Duration.ofSeconds(2), "b")); // the second call to B is slow, and not hedged to C

    ChainResult.Answered<String> answered = answered(hedged(A, B, C));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(answered.steps()).extracting(AttemptRecord::target).containsExactly(A, B, B);
    assertThat(steps(answered)).containsExactly(FAILED, FAILED, ANSWERED);
    assertThat(answered.steps()).extracting(AttemptRecord::hedge).containsExactly(false, true, false);
    assertThat(upstream.callsTo(C)).isEmpty();
    assertThat(upstream.callsTo(B)).extracting(AttemptContext::call).containsExactly(2, 3);
  }

  @Test
  void aStreamRecoveryIsNeverHedged() {
    upstream.on(A, silentThenOk(Duration.ofSeconds(1), "a"));

    ChainResult<String> result = chain().withHedging(clock, DIRECT)
        .execute(List.of(A, B), Deadline.after(DEADLINE, clock), true, upstream, AFTER);

    assertThat(answered(result).target()).isEqualTo(A);
    assertThat(upstream.callsTo(B)).isEmpty();
  }

  @Test
  void theFirstCallWinsWhileTheHedgeRunsAndTheHedgeIsClosedAndSettledWithoutAVerdict() throws Exception {
    CountDownLatch hedgeEnded = new CountDownLatch(1);
    upstream.on(A, context -> {
      clock.advance(Duration.ofMillis(600)); // the hedge starts on its own thread at 500 ms
      return AttemptResult.success("a");
    });
    upstream.on(B, context -> {
      CountDownLatch closed = new CountDownLatch(1);
      context.control().onAbort(closed::countDown); // as an upstream attempt closes its connection
      try {
        closed.await();
        return AttemptResult.failed(Failures.cancelled(), null);
      } finally {
        hedgeEnded.countDown();
      }
    });
    Executor threads = task -> Thread.ofVirtual().start(task);

    ChainResult.Answered<String> answered = answered(hedged(threads, DEADLINE, AFTER, A, B));

    assertThat(answered.target()).isEqualTo(A);
    assertThat(steps(answered)).containsExactly(ANSWERED, CANCELLED);
    assertThat(hedgeEnded.await(10, TimeUnit.SECONDS)).as("the hedge was aborted").isTrue();
    assertThat(breaker(B).snapshot().recentFailures()).as("a cancelled hedge is not a failure of its target").isZero();
    assertThat(breaker(B).state()).isEqualTo(CircuitState.CLOSED);
    assertThat(observer.events).extracting(RecordingObserver.Event::target).doesNotContain(B);
  }

  @Test
  void whenTheFirstCallFailsWhileTheHedgeRunsTheHedgeIsWaitedFor() throws Exception {
    CountDownLatch firstFailed = new CountDownLatch(1);
    upstream.on(A, context -> {
      clock.advance(Duration.ofMillis(600));
      firstFailed.countDown();
      return AttemptResult.failed(Failures.overloaded(), "a: 529");
    });
    upstream.on(B, context -> {
      firstFailed.await();
      return AttemptResult.success("b");
    });
    Executor threads = task -> Thread.ofVirtual().start(task);

    ChainResult.Answered<String> answered = answered(hedged(threads, DEADLINE, AFTER, A, B));

    assertThat(answered.target()).isEqualTo(B);
    assertThat(answered.steps()).extracting(AttemptRecord::target).containsExactly(A, B);
    assertThat(answered.steps().get(1).step()).isEqualTo(ANSWERED);
    assertThat(upstream.callsTo(A)).as("the 529 was not retried on A while B answered").hasSize(1);
  }

  @Test
  void exactlyOneOfTwoCallsAnsweringTogetherWins() throws Exception {
    for (int i = 0; i < 200; i++) {
      ChainFixtureRun run = new ChainFixtureRun();
      run.upstream.on(A, context -> {
        run.clock.advance(Duration.ofMillis(600));
        return AttemptResult.success("a");
      });
      run.upstream.on(B, context -> AttemptResult.success("b"));
      ChainResult.Answered<String> answered = answered(run.hedged());
      answered.completion().success();

      assertThat(answered.steps()).filteredOn(s -> s.step() == ANSWERED).hasSize(1);
      assertThat(answered.steps()).filteredOn(s -> s.step() == CANCELLED).hasSize(1);
      assertThat(answered.steps()).filteredOn(s -> s.step() == ANSWERED).first()
          .extracting(AttemptRecord::target).isEqualTo(answered.target());
      Target winner = answered.target();
      Target loser = winner.equals(A) ? B : A;
      assertThat(run.breaker(winner).state()).isEqualTo(CircuitState.CLOSED);
      awaitSettled(run, loser);
      assertThat(run.breaker(loser).snapshot().recentFailures()).as("the loser counted neither way").isZero();
      assertThat(run.observer.events).extracting(RecordingObserver.Event::target).containsExactly(winner);
    }
  }

  /** A fresh world per round of the race test, with the hedge on its own thread. */
  static final class ChainFixtureRun extends ChainFixture {
    ChainResult<String> hedged() {
      return chain().withHedging(clock, task -> Thread.ofVirtual().start(task))
          .execute(List.of(A, B), Deadline.after(DEADLINE, clock), false, upstream, AFTER);
    }
  }

  void awaitSettled(Target target) {
    awaitSettled(this, target);
  }

  /**
   * Waits until {@code target}'s HALF_OPEN trial slot is free again: a losing hedge settles its
   * permit on its own thread, just after the race. Fails after 10 s.
   */
  static void awaitSettled(ChainFixture world, Target target) {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!world.admitsACall(target)) {
      assertThat(System.nanoTime()).as("the permit of " + target + " was never settled").isLessThan(until);
      Thread.onSpinWait();
    }
  }
}
