package dev.levee.core.chain;

import static dev.levee.core.chain.AttemptRecord.Step.ANSWERED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Permit;
import dev.levee.core.deadline.Deadline;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * Review: a hedged request whose first call was its target's half-open trial lost the trial to the
 * hedge. The healed primary, slow to begin (past the hedge delay) but answering, was aborted when
 * the fallback answered first; its trial permit was settled without a verdict, the circuit stayed
 * HALF_OPEN, and the next trial went the same way: with {@code hedge:} configured a slow but
 * healed primary never closed. A trial call is now never hedged, whether its permit is the
 * breaker's own or one reserved before the run (the queue's trial job). Virtual time throughout.
 */
class HedgeStealsTrialRegressionTest extends ChainFixture {

  private static final Duration HEDGE_AFTER = Duration.ofMillis(500);
  private static final Duration PRIMARY_SILENCE = Duration.ofSeconds(3); // past the hedge delay
  private static final Executor DIRECT = Runnable::run;

  private ChainResult<String> hedged(ReservedPermit reserved) {
    return chain().withHedging(clock, DIRECT)
        .execute(List.of(A, B), Deadline.after(DEADLINE, clock), false, upstream, HEDGE_AFTER, reserved);
  }

  /** Healed but slow to begin: silent past the hedge delay, then answers (unless aborted first). */
  private void primarySlowButHealthy() {
    upstream.on(A, context -> {
      clock.advance(PRIMARY_SILENCE);
      return context.control().aborted()
          ? AttemptResult.failed(Failures.cancelled(), null)
          : AttemptResult.success("a");
    });
    upstream.on(B, ScriptedUpstream.ok("b"));
  }

  @Test
  void anOrdinaryHalfOpenTrialIsNotHedgedAndItsSuccessClosesTheCircuit() {
    readyForTrial(A);
    primarySlowButHealthy();

    ChainResult.Answered<String> answered = answered(hedged(ReservedPermit.NONE));
    answered.completion().success();

    assertThat(answered.target()).as("old: the hedge on B answered and aborted the trial").isEqualTo(A);
    assertThat(steps(answered)).containsExactly(ANSWERED);
    assertThat(upstream.callsTo(B)).as("no hedge for a trial").isEmpty();
    assertThat(breaker(A).state()).as("the trial's verdict closed the circuit").isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void aReservedTrialPermitIsNotHedgedEither() {
    readyForTrial(A);
    Permit trial = ((CircuitBreaker.Admitted) breaker(A).tryAcquire()).permit();
    assertThat(trial.trial()).isTrue();
    ReservedPermit reserved = new ReservedPermit(A, trial);
    primarySlowButHealthy();

    ChainResult.Answered<String> answered = answered(hedged(reserved));
    answered.completion().success();
    reserved.release();

    assertThat(answered.target()).as("old: the queue's trial job was answered by the hedge").isEqualTo(A);
    assertThat(upstream.callsTo(B)).isEmpty();
    assertThat(breaker(A).state()).isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void aClosedTargetsSlowFirstCallIsStillHedged() {
    primarySlowButHealthy();

    ChainResult.Answered<String> answered = answered(hedged(ReservedPermit.NONE));

    assertThat(answered.target()).as("hedging itself is unchanged").isEqualTo(B);
  }
}
