package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.tier.Tier;
import dev.levee.gateway.jobs.JobWorkers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): docs/gateway.md's access log section said a queued job's try ends
 * its outcome with {@code job} ({@code ok job}, {@code exhausted job …}, {@code lease_lost job},
 * {@code cancelled job}), but the line names the job ({@code outcome=ok job=job_…}), as
 * docs/observability.md says. Each outcome a try's line can have is written here by {@link
 * JobAnswers} for a job id, and must be in the section in the form it takes ({@code job=job_…}).
 */
class QueuedTryOutcomeDocumentedRegressionTest {

  private static final String JOB = "job_0123456789abcdefghijklmnop";
  private static final Target TARGET = new Target("emu", "claude-big");

  @Test
  void theAccessLogSectionWritesATrysOutcomeAsTheLineDoes() throws Exception {
    String docs = Files.readString(Path.of("..", "docs", "gateway.md"));
    String section = docs.substring(docs.indexOf("## Access log"), docs.indexOf("### Why a request was refused"));
    Failure invalid = Failure.of(FailureKind.CLIENT_ERROR, 400, "invalid_request_error", "bad");
    FailureResponse exhausted = new FailureResponse(new ApiError(529, "overloaded_error", "all failed"),
        Optional.empty(), "emu/claude-big: 529", TARGET, Map.of());
    List<String> outcomes = List.of(
        outcome(new Outcome.Answered(new ChainResult.Answered<>(Reply.whole(200, Map.of(), new byte[0]), TARGET, null,
            false, List.of()), 1), null),
        outcome(new Outcome.Rejected(TARGET, invalid, null, 1), null),
        outcome(new Outcome.Exhausted(exhausted, 1, List.of()), null).replace("emu/claude-big: 529", "<why>"),
        outcome(new Outcome.Cancelled(1), null),
        outcome(new Outcome.Cancelled(1), JobWorkers.CANCELLED),
        outcome(new Outcome.Cancelled(1), JobWorkers.SHUTDOWN));

    assertThat(outcomes).allSatisfy(written -> assertThat(written).contains(" job=job_…"));
    assertThat(outcomes).allSatisfy(written -> assertThat(section).contains("`" + written + "`"));
  }

  /** The outcome {@link JobAnswers} writes for a try of {@link #JOB}, its id written {@code job_…} as the docs do. */
  private static String outcome(Outcome outcome, String stoppedAs) {
    return JobAnswers.of(outcome, Tier.T0, JOB, stoppedAs).sent().outcome().replace(JOB, "job_…");
  }
}
