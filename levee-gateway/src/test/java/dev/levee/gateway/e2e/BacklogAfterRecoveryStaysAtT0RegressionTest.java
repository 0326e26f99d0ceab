package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.breaker.Permit;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Newcomer trial, session 9 (HIGH): a feature with {@code on-outage: queue} (fail-mode closed) on
 * alias {@code sick2}, whose target answered 529, had a backlog of queued jobs. The upstream
 * healed; once the tier stepped back up every worker claimed a job at once, one job became the
 * breaker's half-open trial and the rest of the backlog cycled through instant refusals ("circuit
 * half-open, trial in flight", no upstream call), each counted as a client failure in the tier's
 * SLI — the feature went T0 -> T2 with the circuit closing and the upstream healthy, its jobs were
 * held minutes more and its interactive requests queued. Now work waits while the trial is in
 * flight, and a job's try feeds no client SLO (a failed try puts the job back to wait).
 *
 * <p>One long-lived gateway and emulator on one manual clock (breaker, tier evaluation, the
 * emulator's incident); the job store's times are the system's, so the workers poll for real.
 */
class BacklogAfterRecoveryStaysAtT0RegressionTest {

  private static final Target SICK = new Target("emu", "claude-sick");
  private static final Target REDUCED = new Target("emu", "claude-b");

  private final ManualClock clock = new ManualClock();
  @AutoClose
  private Harness harness;

  private void start() throws Exception {
    harness = VirtualTime.start(clock, 9, VirtualTime.overloaded("claude-sick", Duration.ZERO, Duration.ofSeconds(60)),
        """
        policy:
          retry: { max-retries: 0 }
          breaker: { failures: 3, window: 30s, open-for: 10s, close-after: 2 }
        models:
          sick2: { chain: [emu/claude-sick] }
          split: { chain: [emu/claude-a, emu/claude-b] }
        features:
          reports: { fail-mode: closed, on-outage: queue }
          nightly: { fail-mode: open }
        """ + DrainingQueue.section());
  }

  private static String body(String model, String prompt) {
    return ClientRequests.message(model, 32, prompt);
  }

  private static Map<String, String> headers(String feature) {
    return ClientRequests.forFeature(feature);
  }

  private JsonNode job(String id) throws Exception {
    return Json.tryParse(harness.getWith("/v1/levee/jobs/" + id, "sk-a").body());
  }

  private boolean allSucceeded(List<String> ids) throws Exception {
    for (String id : ids) {
      if (!"succeeded".equals(job(id).get("state").asText())) {
        return false;
      }
    }
    return true;
  }

  private void awaitSucceeded(List<String> ids) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!allSucceeded(ids) && System.nanoTime() < until) {
      Thread.sleep(50); // the workers run on real time: polling as a client would
    }
    for (String id : ids) {
      assertThat(job(id).get("state").asText()).as(id + ": " + job(id)).isEqualTo("succeeded");
    }
  }

  /** Advances 5 s of virtual time (an evaluation) until the pair is at {@code tier}; at most 10 min. */
  private void advanceUntil(String feature, String alias, Tier tier) {
    for (int i = 0; i < 120 && harness.gateway.tiers().currentTier(feature, alias) != tier; i++) {
      clock.advance(Duration.ofSeconds(5));
    }
    assertThat(harness.gateway.tiers().currentTier(feature, alias)).isEqualTo(tier);
  }

  @Test
  void afterRecoveryTheBacklogWaitsForTheHalfOpenTrialThenDrainsAndTheFeatureStaysAtT0() throws Exception {
    start();
    List<String> backlog = new ArrayList<>();
    for (int i = 0; i < 25; i++) { // the outage: every request fails, fail-closed answers 503 with a job id
      HttpResponse<String> queued = harness.post("/v1/messages", body("sick2", "report " + i), headers("reports"));
      assertThat(queued.statusCode()).isEqualTo(503);
      backlog.add(queued.headers().firstValue("x-levee-job").orElseThrow());
    }
    CircuitBreaker breaker = harness.gateway.chain().breakers().of(SICK);
    assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
    clock.advance(Duration.ofSeconds(5));
    assertThat(harness.gateway.tiers().currentTier("reports", "sick2")).as("the clients' failures").isEqualTo(Tier.T2);

    // the pool would take the trial itself once the open period is over (it claims a trial job):
    // held while the test takes it, so the trial in flight is the test's (full suite, session 11)
    harness.gateway.work().workers().hold(true);
    clock.advance(Duration.ofSeconds(56)); // the upstream heals; the open period is long over
    Permit trial = ((CircuitBreaker.Admitted) breaker.tryAcquire()).permit(); // a slow trial, in flight
    harness.gateway.work().workers().hold(false);
    assertThat(breaker.awaitingTrial()).isTrue();
    advanceUntil("reports", "sick2", Tier.T0); // the tier steps back up: nothing holds the backlog but the trial
    int callsBefore = harness.emulator.log().size();

    Thread.sleep(300); // many polls of the dispatcher (20 ms) while the trial is in flight
    clock.advance(Duration.ofSeconds(5)); // an evaluation

    assertThat(harness.emulator.log()).as("no job called beside the trial").hasSize(callsBefore);
    JsonNode held = job(backlog.getFirst());
    assertThat(held.get("state").asText()).isEqualTo("queued");
    assertThat(held.get("waiting_reason").asText()).contains("emu/claude-sick: circuit half-open, trial in flight");
    assertThat(harness.gateway.tiers().currentTier("reports", "sick2")).isEqualTo(Tier.T0);

    trial.success(); // the trial decides: the backlog resumes (its next call is the second trial)
    awaitSucceeded(backlog);
    clock.advance(Duration.ofSeconds(5));
    clock.advance(Duration.ofSeconds(5));

    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
    assertThat(harness.gateway.tiers().currentTier("reports", "sick2")).isEqualTo(Tier.T0);
    HttpResponse<String> interactive = harness.post("/v1/messages", body("sick2", "now"), headers("reports"));
    assertThat(interactive.statusCode()).as(interactive.body()).isEqualTo(200);
    assertThat(interactive.headers().firstValue("x-levee-tier")).hasValue("T0");
    assertThat(interactive.headers().firstValue("x-levee-job")).isEmpty();
  }

  /**
   * A feature at T1 whose reduced target has its half-open trial in flight: its queued work is not
   * reduced, so it goes to the alias's own chain, which answers (an interactive request at T1 would
   * go to the reduced target and be refused without a call). Before queued work stopped being
   * reduced (QueuedWorkNotReducedAtT1RegressionTest) this was how job tries got refused without an
   * upstream call while nothing held them — 40 such tries, none fed the SLO; that path is gone, as
   * the gate holds work whose every target refuses. Job answers feed no SLO either: the pair is at
   * T0 once the force is cleared, and stays there.
   */
  @Test
  void jobsOfAFeatureAtT1GoToTheAliassChainNotToItsReducedTargetsTrialAndFeedNoSlo() throws Exception {
    start();
    HttpResponse<String> client = harness.post("/v1/messages", body("split", "a client"), headers("nightly"));
    assertThat(client.statusCode()).as("the pair has clients: its SLO is kept").isEqualTo(200);
    CircuitBreaker reduced = harness.gateway.chain().breakers().of(REDUCED);
    for (int i = 0; i < 3; i++) {
      ((CircuitBreaker.Admitted) reduced.tryAcquire()).permit().failure();
    }
    clock.advance(Duration.ofSeconds(10));
    Permit trial = ((CircuitBreaker.Admitted) reduced.tryAcquire()).permit();
    harness.gateway.tiers().controller("nightly").force(Tier.T1, Duration.ofMinutes(30));
    String id = DrainingQueue.postBatch(harness, 20, "n", i -> body("split", "night " + i), headers("nightly"));

    JsonNode view = DrainingQueue.awaitEnded(harness, id);

    assertThat(view.at("/request_counts/succeeded").asInt()).as(view.toString()).isEqualTo(20);
    assertThat(harness.emulator.log()).as("the client's call and one per job, all to the alias's primary")
        .hasSize(21).allSatisfy(call -> assertThat(call.model()).isEqualTo("claude-a"));
    assertThat(refusedJobTries()).as("no job try refused at T1").isZero();
    assertThat(reduced.state()).as("the trial is still the test's").isEqualTo(CircuitState.HALF_OPEN);
    harness.gateway.tiers().controller("nightly").clearForce();
    clock.advance(Duration.ofSeconds(5));
    assertThat(harness.gateway.tiers().currentTier("nightly", "split")).isEqualTo(Tier.T0);
    trial.success();
    clock.advance(Duration.ofSeconds(5));
    assertThat(harness.gateway.tiers().currentTier("nightly", "split")).isEqualTo(Tier.T0);
  }

  // a job's try is logged at T0 whatever its feature's tier (never reduced), under endpoint "queued"
  private static final Pattern EXHAUSTED_JOB_TRIES =
      Pattern.compile("levee_requests_total\\{endpoint=\"queued\",outcome=\"exhausted\",tier=\"[^\"]*\"} ([0-9.E]+)");

  /** Job tries that came to nothing (the access log's {@code exhausted job …}), from {@code /metrics}. */
  private long refusedJobTries() throws Exception {
    Matcher m = EXHAUSTED_JOB_TRIES.matcher(harness.get("/metrics").body());
    long tries = 0;
    while (m.find()) {
      tries += (long) Double.parseDouble(m.group(1));
    }
    return tries;
  }
}
