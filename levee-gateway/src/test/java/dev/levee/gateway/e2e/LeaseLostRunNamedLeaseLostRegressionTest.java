package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import dev.levee.emulator.EmulatorOptions;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A job's run stopped because its worker lost its claim (the lease ran out before a renewal got
 * through: the job was queued again, or another worker took it) was written to the access log and
 * {@code levee_requests_total} as {@code client_gone} — a job has no client; an operator reading it
 * looked for a disconnect that never happened. It is {@code lease_lost} now. The claim is taken
 * away as a recovery pass on another replica would, while the job's call hangs upstream.
 */
class LeaseLostRunNamedLeaseLostRegressionTest {

  private Harness harness;

  @AfterEach
  void stop() throws Exception {
    if (harness != null) {
      harness.close();
    }
  }

  @Test
  void aRunStoppedBecauseItsClaimWasLostIsLoggedAndCountedAsLeaseLost() throws Exception {
    String id = startAJobThatHangs();
    harness.gateway.work().workers().hold(true); // this pool starts nothing more: the job waits for "another replica"
    // the claim is lost: a recovery pass (another replica's, say) finds the lease over and queues the job again
    assertThat(harness.gateway.work().jobs().recover(Instant.now().plus(Duration.ofHours(1)), false)).isEqualTo(1);

    String metrics = harness.awaitMetrics("outcome=\"lease_lost\"");
    assertThat(metrics).as("the stopped run, by what happened to it")
        .contains("levee_requests_total{endpoint=\"queued\",outcome=\"lease_lost\",tier=\"T0\"}")
        .doesNotContain("outcome=\"client_gone\"");
    assertThat(harness.gateway.work().jobs().batchJobs(id, 0, 1)).singleElement().satisfies(job ->
        assertThat(job.lastError()).as("the job record says why it runs again").startsWith("lease_lost: "));
  }

  /**
   * The heartbeat matched renewed claims by job id: when the gateway that lost a claim claimed the
   * same job again (its lease ran out while it could not renew — a database stall on a lone
   * gateway), the new claim's renewal kept the old run alive, and both ran towards the upstream
   * until the old one's attempt timed out. Claims are matched by id and attempts now: the old run stops.
   */
  @Test
  void theOlderRunOfAJobThisGatewayClaimedAgainStops() throws Exception {
    startAJobThatHangs();
    assertThat(harness.gateway.work().jobs().recover(Instant.now().plus(Duration.ofHours(1)), false)).isEqualTo(1);
    // the pool claims the job again at once (poll 20 ms): two runs of it here, the older one's claim lost

    assertThat(harness.awaitMetrics("outcome=\"lease_lost\"")).as("the older run stopped")
        .contains("levee_requests_total{endpoint=\"queued\",outcome=\"lease_lost\",tier=\"T0\"} 1.0");
  }

  /** A gateway whose only job's call hangs upstream, running; returns the batch id. */
  private String startAJobThatHangs() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), """
        policy:
          deadline: 60s
          attempt-timeout: 30s
          retry: { max-retries: 0 }
        models:
          slow: { chain: [emu/emu-hang-always] }
        queue:
          folder: ${QUEUE}
          secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
          lease: 1s
          poll: 20ms
          pacing: { enabled: false }
        """);
    HttpResponse<String> batch = harness.post("/v1/messages/batches", """
        {"requests":[{"custom_id":"a","params":{"model":"slow","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}}]}""",
        Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01", "content-type", "application/json"));
    assertThat(batch.statusCode()).as(batch.body()).isEqualTo(200);
    String id = Json.tryParse(batch.body()).get("id").asText();
    harness.awaitLog(log -> log.stream().anyMatch(call -> "emu-hang-always".equals(call.model())));
    return id;
  }
}
