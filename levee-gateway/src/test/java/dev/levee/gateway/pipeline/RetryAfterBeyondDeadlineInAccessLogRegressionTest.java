package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.AttemptRecord;
import dev.levee.core.chain.AttemptRecord.Step;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.Target;
import dev.levee.core.chain.WaitTooLong;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.tier.Tier;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): a target not retried because its 429's {@code retry-after} did not
 * fit in the deadline's time left left no trace in the access line either. The line of an answer
 * from the next target now says why in {@code reason="…"}; an all-failed answer's outcome, built
 * from the same words as its {@code x-levee-reason}, says so too.
 */
@Tag("regression")
class RetryAfterBeyondDeadlineInAccessLogRegressionTest {

  private static final Target A = new Target("up", "claude-x");
  private static final Target B = new Target("up", "claude-y");
  private static final Failure LIMITED = new Failure(FailureKind.RATE_LIMITED, 429, "rate_limit_error",
      "Rate limited", Optional.of(Duration.ofSeconds(30)), Optional.empty());
  private static final String WHY = "up/claude-x: 429 rate_limit_error "
      + "(1 call, then not retried: retry-after 30 s does not fit in the 12 s left of the deadline)";

  private static final List<AttemptRecord> GAVE_UP = List.of(
      new AttemptRecord(A, Step.FAILED, LIMITED, Duration.ZERO, Duration.ofMillis(40)),
      new AttemptRecord(A, Step.DEADLINE, null, Duration.ZERO, Duration.ZERO, false, Duration.ZERO,
          new WaitTooLong.StatedBeyondDeadline(Duration.ofSeconds(30), Duration.ofSeconds(31), Duration.ofMillis(12_900))));

  @Test
  void anAnswerFromTheNextTargetSaysWhyThePrimaryWasNotRetried() {
    List<AttemptRecord> steps = new java.util.ArrayList<>(GAVE_UP);
    steps.add(new AttemptRecord(B, Step.ANSWERED, null, Duration.ZERO, Duration.ofMillis(30)));
    AccessRecord r = new AccessRecord("req_1", "POST", "/v1/messages", "smart", false, Tier.T0, 200, B, 2, true, 50,
        "ok", null, steps, null);

    assertThat(AccessLog.reason(r)).as("the time left rounds down")
        .isEqualTo(" reason=\"" + WHY + "; up/claude-y: answered\"");
  }

  @Test
  void anAllFailedAnswerSaysWhyInItsReason() {
    ChainResult.TargetReport report = new ChainResult.TargetReport(A, ChainResult.Why.FAILED, 1, LIMITED,
        Duration.ZERO, false, new WaitTooLong.StatedBeyondDeadline(Duration.ofSeconds(30), Duration.ofSeconds(31), Duration.ofMillis(12_900)));
    FailureResponse failure = FailureResponse.of(new ChainResult.Exhausted<>(LIMITED, null,
        Optional.of(Duration.ofSeconds(30)), false, List.of(report), GAVE_UP));

    assertThat(failure.reason()).isEqualTo(WHY);
    assertThat(failure.error().status()).isEqualTo(429);
  }

  /** Regression: "retry-after 28 s does not fit in the 30 s left" read false; the wait with its jitter and min-attempt-time says why. */
  @Test
  void aStatedWaitShorterThanTheTimeLeftNamesWhatSittingItOutWouldTake() {
    ChainResult.TargetReport report = new ChainResult.TargetReport(A, ChainResult.Why.FAILED, 1, LIMITED,
        Duration.ZERO, false, new WaitTooLong.StatedBeyondDeadline(Duration.ofSeconds(28), Duration.ofMillis(30_900),
            Duration.ofMillis(30_400)));
    FailureResponse failure = FailureResponse.of(new ChainResult.Exhausted<>(LIMITED, null,
        Optional.of(Duration.ofSeconds(28)), false, List.of(report), GAVE_UP));

    assertThat(failure.reason()).isEqualTo("up/claude-x: 429 rate_limit_error (1 call, then not retried: "
        + "retry-after 28 s (with jitter and min-attempt-time 31 s) does not fit in the 30 s left of the deadline)");
  }
}
