package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.AttemptRecord;
import dev.levee.core.chain.AttemptRecord.Step;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.tier.Tier;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 12): a successful fallback's access line said {@code calls=2
 * fallback=true … outcome=ok} and no reason; the reason was only in the answer's {@code
 * x-levee-reason}. The access record of an answer after retries, a fallback or a hedge now carries
 * the same words as {@code reason="…"}.
 */
class FallbackReasonInAccessLogRegressionTest {

  private static final Target A = new Target("emu", "a");
  private static final Target B = new Target("emu", "b");

  private static AttemptRecord failed(Target target, String type) {
    return new AttemptRecord(target, Step.FAILED, Failure.of(FailureKind.OVERLOADED, 529, type, "sk-ant-secret"),
        Duration.ZERO, Duration.ofMillis(20));
  }

  private static AttemptRecord answered(Target target) {
    return new AttemptRecord(target, Step.ANSWERED, null, Duration.ZERO, Duration.ofMillis(30));
  }

  private static AccessRecord record(Target target, boolean fallback, String outcome, List<AttemptRecord> steps) {
    return new AccessRecord("req_1", "POST", "/v1/messages", "smart", false, Tier.T0, 200, target, steps.size(),
        fallback, 50, outcome, null, steps, null);
  }

  @Test
  void aSuccessfulFallbacksLineSaysWhyAsTheHeaderDoes() {
    List<AttemptRecord> steps = List.of(failed(A, "overloaded_error"), answered(B));
    AccessRecord r = record(B, true, "ok", steps);

    assertThat(AccessLog.reason(r)).isEqualTo(" reason=\"emu/a: 529 overloaded_error (1 call); emu/b: answered\"")
        .isEqualTo(" reason=\"" + AnsweredReason.of(steps) + "\"");
  }

  @Test
  void aRetryThatAnsweredSaysSoToo() {
    assertThat(AccessLog.reason(record(A, false, "ok", List.of(failed(A, "overloaded_error"), answered(A)))))
        .isEqualTo(" reason=\"emu/a: 529 overloaded_error (1 call), then answered\"");
  }

  @Test
  void aPlainAnswerAndAFailureGetNoReasonField() {
    assertThat(AccessLog.reason(record(A, false, "ok", List.of(answered(A))))).isEmpty();
    assertThat(AccessLog.reason(record(null, false, "exhausted", List.of(failed(A, "overloaded_error"),
        failed(B, "overloaded_error"))))).as("a failure's outcome already says why").isEmpty();
  }

  @Test
  void quotesAndControlCharactersCannotBreakTheLineAndNoMessageIsLogged() {
    String line = AccessLog.reason(record(B, true, "ok", List.of(failed(A, "odd\"type\nx=1"), answered(B))));

    assertThat(line).isEqualTo(" reason=\"emu/a: 529 odd'type?x=1 (1 call); emu/b: answered\"").doesNotContain("sk-ant");
  }
}
