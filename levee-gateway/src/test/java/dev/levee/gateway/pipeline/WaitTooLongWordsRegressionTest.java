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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Regression (siblings of {@link RetryAfterBeyondDeadlineInAccessLogRegressionTest}): a target not
 * retried because its {@code retry-after} was over {@code max-retry-after}, or because its backoff
 * did not fit in the deadline's time left, left no trace in the access line or the all-failed
 * reason. Both now say why, and their numbers never show a wait that would have been sat out: the
 * wait (and {@code min-attempt-time}) rounded up, the limit rounded down.
 */
@Tag("regression")
class WaitTooLongWordsRegressionTest {

  private static final Target A = new Target("up", "claude-x");
  private static final Target B = new Target("up", "claude-y");
  private static final Failure OVERLOADED = Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "Overloaded");
  private static final Failure LIMITED = new Failure(FailureKind.RATE_LIMITED, 429, "rate_limit_error",
      "Rate limited", Optional.of(Duration.ofMillis(60_500)), Optional.empty());

  @Test
  void anAnswerAfterABackoffBeyondTheDeadlineSaysItInItsReason() {
    WaitTooLong backoff = new WaitTooLong.BackoffBeyondDeadline(Duration.ofNanos(812_300_000), Duration.ofMillis(100),
        Duration.ofNanos(899_900_000));
    List<AttemptRecord> steps = new ArrayList<>(List.of(
        new AttemptRecord(A, Step.FAILED, OVERLOADED, Duration.ZERO, Duration.ofMillis(40)),
        new AttemptRecord(A, Step.FAILED, OVERLOADED, Duration.ofMillis(300), Duration.ofMillis(40)),
        new AttemptRecord(A, Step.DEADLINE, null, Duration.ZERO, Duration.ZERO, false, Duration.ZERO, backoff),
        new AttemptRecord(B, Step.ANSWERED, null, Duration.ZERO, Duration.ofMillis(30))));
    AccessRecord r = new AccessRecord("req_1", "POST", "/v1/messages", "smart", false, Tier.T0, 200, B, 3, true, 50,
        "ok", null, steps, null);

    assertThat(AccessLog.reason(r)).isEqualTo(" reason=\"up/claude-x: 529 overloaded_error (2 calls, then not "
        + "retried: a backoff of 813 ms and min-attempt-time 100 ms do not fit in the 899 ms left of the deadline); "
        + "up/claude-y: answered\"");
  }

  @Test
  void anAllFailedAnswerSaysTheStatedWaitWasOverMaxRetryAfter() {
    WaitTooLong overMax = new WaitTooLong.StatedOverMaxRetryAfter(Duration.ofMillis(60_500), Duration.ofSeconds(60));
    List<AttemptRecord> steps = List.of(
        new AttemptRecord(A, Step.FAILED, LIMITED, Duration.ZERO, Duration.ofMillis(40)),
        new AttemptRecord(A, Step.OVER_MAX_RETRY_AFTER, null, Duration.ZERO, Duration.ZERO, false, Duration.ZERO,
            overMax));
    ChainResult.TargetReport report = new ChainResult.TargetReport(A, ChainResult.Why.FAILED, 1, LIMITED,
        Duration.ZERO, false, overMax);
    FailureResponse failure = FailureResponse.of(new ChainResult.Exhausted<>(LIMITED, null,
        Optional.of(Duration.ofMillis(60_500)), false, List.of(report), steps));

    assertThat(failure.reason()).isEqualTo("up/claude-x: 429 rate_limit_error "
        + "(1 call, then not retried: retry-after 61 s is longer than max-retry-after 60 s)");
  }
}
