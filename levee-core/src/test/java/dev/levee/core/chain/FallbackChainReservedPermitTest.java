package dev.levee.core.chain;

import static dev.levee.core.chain.AttemptRecord.Step.ANSWERED;
import static dev.levee.core.chain.ScriptedUpstream.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Permit;
import dev.levee.core.deadline.Deadline;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A permit reserved before the run (the gateway queue's trial job): the first call to its target
 * goes out under it, though the breaker — whose trial slot it holds — would refuse anyone else; a
 * reserved permit no call used is freed by {@link ReservedPermit#release}.
 */
class FallbackChainReservedPermitTest extends ChainFixture {

  private ChainResult<String> runWith(ReservedPermit reserved, Target... targets) {
    return chain().execute(List.of(targets), Deadline.after(DEADLINE, clock), false, upstream, null, reserved);
  }

  private ReservedPermit reserveTrial(Target target) {
    readyForTrial(target);
    Permit trial = ((CircuitBreaker.Admitted) breaker(target).tryAcquire()).permit();
    assertThat(trial.trial()).isTrue();
    return new ReservedPermit(target, trial);
  }

  @Test
  void theTrialCallGoesOutUnderTheReservedPermitAndItsSuccessClosesTheCircuit() {
    ReservedPermit reserved = reserveTrial(A);
    upstream.on(A, ok("from a"));

    ChainResult.Answered<String> answered = answered(runWith(reserved, A, B));
    answered.completion().success();

    assertThat(answered.target()).isEqualTo(A);
    assertThat(steps(answered)).containsExactly(ANSWERED);
    assertThat(breaker(A).state()).isEqualTo(CircuitState.CLOSED);
    assertThat(reserved.release()).as("used by the call: nothing left to free").isFalse();
  }

  @Test
  void aReservedPermitNoCallUsedIsFreedByRelease() {
    ReservedPermit reserved = reserveTrial(B);
    upstream.on(A, ok("from a"));

    answered(runWith(reserved, A, B)).completion().success(); // the primary answered: B never called

    assertThat(breaker(B).awaitingTrial()).as("the trial slot is still the reservation's").isTrue();
    assertThat(reserved.release()).isTrue();
    assertThat(breaker(B).awaitingTrial()).as("freed at once, not when a lease runs out").isFalse();
    assertThat(breaker(B).tryAcquire()).isInstanceOf(CircuitBreaker.Admitted.class);
  }
}
