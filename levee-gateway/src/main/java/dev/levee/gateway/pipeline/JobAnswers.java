package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.upstream.Headers;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.retry.Failure;
import dev.levee.core.tier.Tier;
import dev.levee.gateway.jobs.JobExecutor;
import dev.levee.gateway.jobs.JobResult;
import dev.levee.gateway.jobs.JobWorkers;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The responder's counterpart for queued work: what going upstream came to, as a job's {@link
 * JobExecutor.Outcome} (the answer recorded for {@code GET /v1/levee/jobs/{id}} and the batch
 * results) and the {@link Sent} for the access record. Headers as the responder sets them on an
 * interactive answer: the upstream's, then {@code x-levee-model}, {@code x-levee-fallback},
 * {@code x-levee-tier}, {@code x-levee-attempts}.
 */
final class JobAnswers {

  /**
   * The outcome word of a job's try stopped because its worker lost its claim (the lease ran out
   * before a renewal got through; the job was queued again or another worker runs it): the only
   * usual thing that stops a job's run — a job has no client to go away ({@code client_gone}); the
   * other is an operator's cancel ({@link JobWorkers#CANCELLED}).
   */
  static final String LEASE_LOST = "lease_lost";

  private static final String LEASE_LOST_WHY = "this worker's lease on the job ran out before a renewal got through; "
      + "stopped here (it runs again elsewhere)";

  private static final String SHUTDOWN_WHY = "the gateway stopped before the try ended (past server.shutdown-grace); "
      + "the job was queued again and nothing this try returns is kept";

  private static final String CANCELLED_WHY = "an operator cancelled the job while it ran; its try was stopped and "
      + "nothing it returns is kept";

  /** A job's outcome and its access-log record. */
  record Answer(JobExecutor.Outcome outcome, Sent sent) {}

  private JobAnswers() {}

  /** {@link #of(Outcome, Tier, String, String)} of a try that, if stopped, lost its claim. */
  static Answer of(Outcome outcome, Tier tier, String jobId) {
    return of(outcome, tier, jobId, null);
  }

  /**
   * @param jobId the job's id, for its access record ({@code ok job=<id>}, {@code exhausted job=<id> <why>},
   *     …): a try can be found by its job; null when not known ({@code ok job})
   * @param stoppedAs why a stopped try was stopped: {@link JobWorkers#CANCELLED} (an operator
   *     cancelled the job), {@link JobWorkers#SHUTDOWN} (the gateway stopped), else (null included)
   *     {@value #LEASE_LOST}
   */
  static Answer of(Outcome outcome, Tier tier, String jobId, String stoppedAs) {
    int calls = outcome.calls();
    String job = jobId == null ? "job" : "job=" + jobId;
    return switch (outcome) {
      case Outcome.Answered json -> {
        Reply reply = json.answered().response();
        Map<String, List<String>> head = new LinkedHashMap<>(Headers.toClient(reply.headers()));
        head.put(LeveeHeaders.MODEL, List.of(json.answered().target().id()));
        head.put(LeveeHeaders.FALLBACK, List.of(Boolean.toString(json.answered().fallback())));
        head.put(LeveeHeaders.TIER, List.of(tier.name()));
        head.put(LeveeHeaders.ATTEMPTS, List.of(Integer.toString(calls)));
        yield new Answer(new JobExecutor.Finished(new JobResult(reply.status(), head, reply.body())),
            new Sent(reply.status(), json.answered().target(), calls, json.answered().fallback(), "ok " + job));
      }
      case Outcome.Rejected rejected -> {
        Reply reply = rejected.reply();
        JobResult result;
        if (reply != null && reply.body() != null) {
          result = new JobResult(reply.status(), Headers.toClient(reply.headers()), reply.body());
        } else {
          Failure f = rejected.failure();
          result = errorResult(ApiError.of(f, f.message()));
        }
        yield new Answer(new JobExecutor.Finished(result), new Sent(result.status(), rejected.target(), calls, false,
            "rejected " + job + " " + rejected.failure().errorType()));
      }
      case Outcome.Exhausted exhausted -> new Answer(
          new JobExecutor.RetryLater(exhausted.failure().reason(), exhausted.failure().retryAfter().orElse(null)),
          new Sent(exhausted.failure().error().status(), exhausted.failure().refused(), calls, false,
              "exhausted " + job + " " + exhausted.failure().reason()));
      case Outcome.Cancelled cancelled when JobWorkers.CANCELLED.equals(stoppedAs) -> new Answer(
          new JobExecutor.RetryLater(JobWorkers.CANCELLED + ": " + CANCELLED_WHY, null),
          new Sent(499, null, calls, false, JobWorkers.CANCELLED + " " + job));
      case Outcome.Cancelled cancelled when JobWorkers.SHUTDOWN.equals(stoppedAs) -> new Answer(
          new JobExecutor.RetryLater(JobWorkers.SHUTDOWN + ": " + SHUTDOWN_WHY, null),
          new Sent(503, null, calls, false, JobWorkers.SHUTDOWN + " " + job));
      case Outcome.Cancelled cancelled -> new Answer(new JobExecutor.RetryLater(LEASE_LOST + ": " + LEASE_LOST_WHY, null),
          new Sent(499, null, calls, false, LEASE_LOST + " " + job));
      case Outcome.Streamed streamed -> throw new IllegalStateException("a queued request is never a stream");
    };
  }

  /** A job whose request Levee refuses (not a valid Messages request): ends with that error. */
  static JobExecutor.Outcome refused(ApiError error) {
    return new JobExecutor.Finished(errorResult(error));
  }

  private static JobResult errorResult(ApiError error) {
    return new JobResult(error.status(), Map.of("content-type", List.of("application/json")), error.toBytes(null));
  }
}
