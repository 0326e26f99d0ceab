package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.jobs.JobState;
import dev.levee.gateway.jobs.JobStore;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Newcomer trial, "backlog after recovery, second form" (HIGH): an outage on a target of a feature
 * that queues its work ({@code on-outage: queue}, fail-closed); the target's SLI window keeps the
 * outage's few failed calls (under the minimum volume, so they stepped nothing down); the upstream
 * heals.
 *
 * <ul>
 *   <li>With a breaker: its half-open trials succeed, it closes, the backlog drains — and the
 *       drain's successes lifted the window over the minimum volume, where the outage's 5xx share
 *       counted: the pair went T0 -> T1 -> T2 on failures already over, on a healthy upstream, and
 *       held there for the 5 min burn window. Now a circuit that closes after its trials starts its
 *       target's window afresh: a step down needs failures newer than the close.
 *   <li>Without a breaker: the pair stepped to T1 on the outage (rightly), its work was held, nothing
 *       called, and 30 s later it stepped on to T2 on the same window — zero new calls — and waited
 *       out the 5 min burn of its clients' three failures before it came back. Now a step down on
 *       signals needs a call failed within the short window (10 s), and a pair with no call and no
 *       client request in its SLI window counts as healthy whatever the burn remembers, so it probes
 *       its way back up.
 * </ul>
 *
 * <p>One long-lived gateway and emulator on one manual clock (breaker, tier evaluation, the
 * emulator's incident); the job store's times are the system's, so the workers poll for real.
 */
class StaleFailuresNeverDegradeARecoveredTargetRegressionTest {

  private static final Target SICK = new Target("emu", "claude-sick");

  private final ManualClock clock = new ManualClock();
  @AutoClose
  private Harness harness;

  /** A gateway whose {@code claude-sick} answers 529 for the first {@code outage} of virtual time. */
  private void start(Duration outage, String breaker) throws Exception {
    harness = VirtualTime.start(clock, 11, VirtualTime.overloaded("claude-sick", Duration.ZERO, outage), """
        policy:
          retry: { max-retries: 0 }
          breaker: %s
        models:
          sick2: { chain: [emu/claude-sick] }
        features:
          reports: { fail-mode: closed, on-outage: queue }
        """.formatted(breaker) + DrainingQueue.section());
  }

  private static String body(String prompt) {
    return ClientRequests.message("sick2", 32, prompt);
  }

  private static Map<String, String> headers() {
    return ClientRequests.forFeature("reports");
  }

  /** Three clients during the outage: each answered 503 with the job that holds its request. */
  private List<String> clientsDuringTheOutage() throws Exception {
    List<String> jobs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> queued = harness.post("/v1/messages", body("report " + i), headers());
      assertThat(queued.statusCode()).as(queued.body()).isEqualTo(503);
      jobs.add(queued.headers().firstValue("x-levee-job").orElseThrow());
    }
    return jobs;
  }

  /** A batch of 25 requests (queued work: no client waits on it, its calls feed the target's window). */
  private String batch() throws Exception {
    return DrainingQueue.postBatch(harness, 25, "r", i -> body("nightly " + i), headers());
  }

  private Tier tier() {
    return harness.gateway.tiers().currentTier("reports", "sick2");
  }

  private String reason() {
    return harness.gateway.tiers().degraded().toString();
  }

  /** Waits (real time: the workers poll for real) until {@code done}, at most 30 s. */
  private static void await(BooleanSupplier done) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!done.getAsBoolean() && System.nanoTime() < until) {
      Thread.sleep(20);
    }
  }

  /** Jobs claimed by a worker, their try in flight. */
  private long running() {
    return harness.gateway.work().jobs().counts().stream().filter(c -> c.state() == JobState.RUNNING)
        .mapToLong(JobStore.Count::jobs).sum();
  }

  private boolean ended(List<String> jobs, String batch) {
    try {
      for (String id : jobs) {
        if (!"succeeded".equals(Json.tryParse(harness.getWith("/v1/levee/jobs/" + id, "sk-a").body())
            .get("state").asText())) {
          return false;
        }
      }
      JsonNode view = Json.tryParse(harness.getWith("/v1/messages/batches/" + batch, "sk-a").body());
      return "ended".equals(view.get("processing_status").asText())
          && view.at("/request_counts/succeeded").asInt() == 25;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aDrainedBacklogNeverStepsAClosedTargetDownOnTheOutagesFailures() throws Exception {
    start(Duration.ofSeconds(20), "{ failures: 3, window: 30s, open-for: 10s, close-after: 2 }");
    List<String> jobs = clientsDuringTheOutage(); // three calls fail, the circuit opens
    CircuitBreaker breaker = harness.gateway.chain().breakers().of(SICK);
    assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);
    String batch = batch(); // held: the circuit is open
    long failed = harness.gateway.tiers().targetCalls(SICK).serverErrors();
    assertThat(failed).as("the outage's failed calls, under the minimum volume").isBetween(3L, 19L);
    clock.advance(Duration.ofSeconds(5));
    assertThat(tier()).as("too few calls to step down on").isEqualTo(Tier.T0);

    clock.advance(Duration.ofSeconds(16)); // the upstream heals; the open period is over
    await(() -> ended(jobs, batch)); // two trials close the circuit, the backlog drains
    assertThat(ended(jobs, batch)).as("every job and the batch succeeded").isTrue();
    assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);

    for (int i = 0; i < 12; i++) { // a minute of evaluations: on the old rule T1 at the first, T2 30 s later
      clock.advance(Duration.ofSeconds(5));
      assertThat(tier()).as("after %d s: %s", 26 + 5 * i, reason()).isEqualTo(Tier.T0);
    }
    assertThat(harness.gateway.tiers().targetCalls(SICK).serverErrors())
        .as("the window forgot the calls before the close").isZero();
    HttpResponse<String> interactive = harness.post("/v1/messages", body("now"), headers());
    assertThat(interactive.statusCode()).as(interactive.body()).isEqualTo(200);
    assertThat(interactive.headers().firstValue("x-levee-tier")).hasValue("T0");
  }

  @Test
  void withoutABreakerAHealedTargetNobodyCallsIsNeverSteppedFurtherDownAndProbesBackUp() throws Exception {
    start(Duration.ofSeconds(10), "off");
    List<String> jobs = clientsDuringTheOutage();
    String batch = batch(); // its jobs call, fail, wait 20 ms and call again: the outage, for real
    await(() -> harness.emulator.log().size() >= 60);
    clock.advance(Duration.ofSeconds(5)); // an evaluation: 5xx 100% of fresh calls
    assertThat(tier()).as("a real outage steps down at once: %s", reason()).isEqualTo(Tier.T1);
    // tries claimed before the step down settle (a fixed 200 ms was too short on a loaded box: a
    // late try called the upstream after the count); from now on the pair's work is held (queue at T1)
    await(() -> running() == 0);
    assertThat(running()).as("tries still in flight after 30 s").isZero();
    int calls = harness.emulator.log().size();

    // the upstream heals at 10 s; nothing calls it: the work is held and no client comes
    for (int i = 0; i < 6; i++) { // to 35 s: on the old rule T2 there (settled, the same window), held 5 min
      clock.advance(Duration.ofSeconds(5));
      assertThat(tier()).as("after %d s: %s", 10 + 5 * i, reason()).isEqualTo(Tier.T1);
    }
    assertThat(harness.emulator.log()).as("nothing called while held").hasSize(calls);

    int seconds = 35;
    while (tier() != Tier.T0 && seconds < 300) {
      clock.advance(Duration.ofSeconds(5));
      seconds += 5;
      assertThat(tier()).as("after %d s: %s", seconds, reason()).isNotEqualTo(Tier.T2);
    }
    assertThat(seconds).as("back at T0 once the window is empty (60 s) and healthy for 30 s, not after the 5 min burn")
        .isLessThanOrEqualTo(100);
    await(() -> ended(jobs, batch)); // the work resumes and the healed upstream answers it
    assertThat(ended(jobs, batch)).as("every job and the batch succeeded").isTrue();
    clock.advance(Duration.ofSeconds(5));
    assertThat(tier()).isEqualTo(Tier.T0);
  }
}
