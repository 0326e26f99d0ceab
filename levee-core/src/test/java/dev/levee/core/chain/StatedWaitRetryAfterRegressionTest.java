package dev.levee.core.chain;

import static dev.levee.core.chain.ScriptedUpstream.fail;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.testing.ScriptedRandom;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression (issue 10): a target that answered 429 with retry-after 2, then 10, then 30 s made
 * an exhausted chain tell the client to come back after 2 s — the smallest wait ever stated, not
 * the one in force. A target's later answer now replaces its earlier one; across targets the
 * earliest still wins.
 */
class StatedWaitRetryAfterRegressionTest extends ChainFixture {

  @Test
  void theClientIsToldTheWaitTheTargetStatedLast() {
    random = ScriptedRandom.always(0.0);
    policy = policy(3);
    upstream.on(A, fail(Failures.rateLimited(Duration.ofSeconds(2))), fail(Failures.rateLimited(Duration.ofSeconds(30))));

    ChainResult.Exhausted<String> exhausted = exhausted(run(Duration.ofSeconds(20), A));

    assertThat(upstream.calls()).hasSize(2); // 2 s waited; 30 s does not fit the deadline (and the circuit is still closed)
    assertThat(breaker(A).state()).isEqualTo(dev.levee.core.breaker.CircuitState.CLOSED);
    assertThat(exhausted.retryAfter()).contains(Duration.ofSeconds(30));
  }

  @Test
  void acrossTargetsTheEarliestStatedWaitStillWins() {
    random = ScriptedRandom.of();
    policy = policy(0);
    upstream.on(A, fail(Failures.rateLimited(Duration.ofSeconds(30))));
    upstream.on(B, fail(Failures.rateLimited(Duration.ofSeconds(4))));

    assertThat(exhausted(run(A, B)).retryAfter()).contains(Duration.ofSeconds(4));
  }
}
