package dev.levee.core.chain;

import static dev.levee.core.chain.AttemptRecord.Step.ANSWERED;
import static dev.levee.core.chain.AttemptRecord.Step.FAILED;
import static dev.levee.core.chain.ScriptedUpstream.fail;
import static dev.levee.core.chain.ScriptedUpstream.failWithoutResponse;
import static dev.levee.core.chain.ScriptedUpstream.ok;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 10, "hand off quickly": after a timeout (attempt timeout, slow first token, stall) the
 * next attempt goes to the next target; a silent target is retried only as the chain's last.
 */
class FallbackChainHandOffTest extends ChainFixture {

  @Test
  void aTimeoutHandsOffToTheNextTargetAtOnce() {
    upstream.on(A, failWithoutResponse(Failures.timeout()), ok("a, too late"));
    upstream.on(B, ok("b answers"));
    long start = clock.nanos();

    ChainResult.Answered<String> answered = answered(run(A, B));

    assertThat(answered.response()).isEqualTo("b answers");
    assertThat(steps(answered)).containsExactly(FAILED, ANSWERED);
    assertThat(upstream.callsTo(A)).hasSize(1);
    assertThat(waits(answered)).containsOnly(Duration.ZERO); // no backoff before handing off
    assertThat(clock.nanos()).isEqualTo(start);
  }

  @Test
  void theLastTargetOfTheChainIsRetriedAfterATimeout() {
    upstream.on(A, failWithoutResponse(Failures.timeout()));
    upstream.on(B, failWithoutResponse(Failures.timeout()), ok("b, second try"));

    ChainResult.Answered<String> answered = answered(run(A, B));

    assertThat(answered.response()).isEqualTo("b, second try");
    assertThat(upstream.callsTo(A)).hasSize(1);
    assertThat(upstream.callsTo(B)).hasSize(2);
  }

  @Test
  void otherRetryableFailuresAreStillRetriedOnTheSameTarget() {
    upstream.on(A, fail(Failures.serverError()), ok("a, second try"));

    ChainResult.Answered<String> answered = answered(run(A, B));

    assertThat(answered.response()).isEqualTo("a, second try");
    assertThat(upstream.callsTo(B)).isEmpty();
  }
}
