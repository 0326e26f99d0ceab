package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): a request to the jobs endpoint ({@code GET /v1/levee/jobs/{id}}) or
 * the Message Batches API was answered with no access-log line and no count in {@code
 * levee_requests_total} or {@code levee_request_duration_seconds}, unlike every {@code
 * /v1/messages} request. Each is now written with the same access record (no alias, no tier) and
 * counted under a bounded {@code endpoint} label ({@code jobs}, {@code batches}): never its id.
 */
class JobAndBatchRequestsRecordedRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big]\n" + Harness.BASE_POLICY;

  @Test
  void jobAndBatchRequestsAreCountedUnderTheirEndpointAndNeverTheirId() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      assertThat(h.getWith("/v1/levee/jobs/job_nothing", "sk-ant-test").statusCode()).isEqualTo(404);
      assertThat(h.getWith("/v1/levee/jobs/job_other", "sk-ant-test").statusCode()).isEqualTo(404);
      assertThat(h.getWith("/v1/messages/batches", "sk-ant-test").statusCode()).isEqualTo(200);
      assertThat(h.post("/v1/messages/batches/msgbatch_nothing/cancel", "", Map.of("x-api-key", "sk-ant-test"))
          .statusCode()).isEqualTo(404);

      String jobs = "levee_requests_total{endpoint=\"jobs\",outcome=\"refused\",tier=\"-\"} 2.0";
      String listed = "levee_requests_total{endpoint=\"batches\",outcome=\"ok\",tier=\"-\"} 1.0";
      String cancelRefused = "levee_requests_total{endpoint=\"batches\",outcome=\"refused\",tier=\"-\"} 1.0";
      String jobsTimed = "levee_request_duration_seconds_count{alias=\"-\",endpoint=\"jobs\",feature=\"-\","
          + "status_class=\"4xx\",tier=\"-\"} 2";
      String batchesTimed = "levee_request_duration_seconds_count{alias=\"-\",endpoint=\"batches\",feature=\"-\","
          + "status_class=\"2xx\",tier=\"-\"} 1";
      // each exchange is counted (then timed) after its answer went out, on the server's thread: the
      // four may land in any order and after the client holds the last answer, so wait for every line
      String metrics = h.awaitMetrics(jobs, listed, cancelRefused, jobsTimed, batchesTimed);
      assertThat(metrics).contains(jobs).contains(listed).contains(cancelRefused).contains(jobsTimed)
          .contains(batchesTimed)
          .doesNotContain("job_nothing").doesNotContain("msgbatch_nothing")
          .as("a job's state is no answer of the Messages API").doesNotContain("source=\"none\"");
    }
  }
}
