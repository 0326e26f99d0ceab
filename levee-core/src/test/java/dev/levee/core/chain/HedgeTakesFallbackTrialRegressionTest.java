package dev.levee.core.chain;

import static dev.levee.core.chain.AttemptRecord.Step.ANSWERED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.deadline.Deadline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Review 3: the mirror of {@link HedgeStealsTrialRegressionTest}. A hedge whose target (the next
 * in the chain) was HALF_OPEN went out under that target's trial permit; the first call, merely
 * slow, answered first and aborted it, so the fallback's trial was settled without a verdict. A
 * fallback reached only through hedges stayed HALF_OPEN however healed it was, and each such hedge
 * held its one trial slot meanwhile. A hedge is now never started on a half-open target. Virtual
 * time; the hedge's executor runs its call only once the test lets it (after the primary answered).
 */
class HedgeTakesFallbackTrialRegressionTest extends ChainFixture {

  private static final Duration HEDGE_AFTER = Duration.ofMillis(500);

  @Test
  void aHalfOpenFallbackIsNotCalledAsAHedgeThatTheFirstCallWouldAbort() {
    readyForTrial(B);
    List<Runnable> hedges = new ArrayList<>();
    upstream.on(A, context -> { // closed and healthy, just slow to begin: past the hedge delay
      clock.advance(Duration.ofSeconds(1));
      return AttemptResult.success("a");
    });
    upstream.on(B, context -> context.control().aborted()
        ? AttemptResult.failed(Failures.cancelled(), null)
        : AttemptResult.success("b"));

    ChainResult<String> result = chain().withHedging(clock, hedges::add)
        .execute(List.of(A, B), Deadline.after(DEADLINE, clock), false, upstream, HEDGE_AFTER, ReservedPermit.NONE);
    hedges.forEach(Runnable::run); // the hedge's thread gets to run only now: it was aborted already

    ChainResult.Answered<String> answered = answered(result);
    assertThat(answered.target()).isEqualTo(A);
    assertThat(steps(answered)).as("old: a CANCELLED hedge step on B").containsExactly(ANSWERED);
    assertThat(upstream.callsTo(B)).as("old: B's trial went out as a hedge and was aborted unjudged").isEmpty();
    assertThat(breaker(B).state()).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(((CircuitBreaker.Admitted) breaker(B).tryAcquire()).permit().trial())
        .as("B's trial is still there for a call that will be judged").isTrue();
  }

  @Test
  void aClosedFallbackIsStillCalledAsAHedge() {
    List<Runnable> hedges = new ArrayList<>();
    upstream.on(A, context -> {
      clock.advance(Duration.ofSeconds(1));
      return AttemptResult.success("a");
    });
    upstream.on(B, ScriptedUpstream.ok("b"));

    chain().withHedging(clock, hedges::add)
        .execute(List.of(A, B), Deadline.after(DEADLINE, clock), false, upstream, HEDGE_AFTER, ReservedPermit.NONE);

    assertThat(hedges).as("hedging itself is unchanged").hasSize(1);
  }
}
