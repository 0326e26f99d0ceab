package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.error.ApiError;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.gateway.jobs.JobWorkers;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A job's try in the access log: named by its job, so a run can be traced to the job a client was given. */
class JobAnswersTest {

  @Test
  void aTrysAccessRecordNamesItsJob() {
    Sent sent = JobAnswers.of(new Outcome.Cancelled(1), Tier.T0, "job_abc").sent();

    assertThat(sent.outcome()).isEqualTo("lease_lost job=job_abc");
    assertThat(JobAnswers.of(new Outcome.Cancelled(1), Tier.T0, null).sent().outcome()).isEqualTo("lease_lost job");
  }

  @Test
  void aTryAnOperatorStoppedIsLoggedAsCancelledNotLeaseLost() {
    assertThat(JobAnswers.of(new Outcome.Cancelled(1), Tier.T0, "job_abc", JobWorkers.CANCELLED).sent().outcome())
        .isEqualTo("cancelled job=job_abc");
  }

  @Test
  void aTryTheStoppingGatewayEndedIsLoggedAsShutdownNotLeaseLost() {
    Sent sent = JobAnswers.of(new Outcome.Cancelled(1), Tier.T0, "job_abc", JobWorkers.SHUTDOWN).sent();

    assertThat(sent.outcome()).isEqualTo("shutdown job=job_abc");
    assertThat(sent.status()).isEqualTo(503);
  }

  /** Regression: every target failed, and the try's access line said {@code target=-}. */
  @Test
  void anExhaustedTrysRecordNamesTheLastTargetThatFailedRegressionTest() {
    Target last = new Target("emu", "claude-small");
    FailureResponse failure = new FailureResponse(new ApiError(529, "overloaded_error", "all failed"), Optional.empty(),
        "emu/claude-big: 529; emu/claude-small: 529", last, Map.of());

    Sent sent = JobAnswers.of(new Outcome.Exhausted(failure, 2, List.of()), Tier.T0, "job_abc").sent();

    assertThat(sent.target()).isEqualTo(last);
  }
}
