package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Target;
import dev.levee.core.time.ManualClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Late trial, batch after heal: alias {@code smart} is {@code [claude-p, claude-f]}. The primary
 * answered 529 until it healed; its circuit opened, and once the open period was over a batch
 * came in. The fallback's circuit being closed, the queue saw nothing to hold: every worker
 * claimed a job at once, one became the primary's half-open trial and the seven others, refused by
 * the primary ("circuit half-open, trial in flight"), were answered by the fallback — a healed
 * primary, and most of the batch answered by the model the client did not ask for first. Now,
 * while the primary awaits its trial, the queue runs one job as the trial and keeps the rest; once
 * the trial closes the circuit the backlog runs on the primary.
 *
 * <p>The gateway and the emulator share a manual clock (breaker, the emulator's incident); the job
 * store's times are the system's, so the workers poll for real.
 */
class BacklogAfterHealRunsOnThePrimaryRegressionTest {

  private static final Target PRIMARY = new Target("emu", "claude-p");
  private static final int JOBS = 12;

  private final ManualClock clock = new ManualClock();
  @AutoClose
  private Harness harness;

  private static String body(String prompt) {
    return ClientRequests.message("smart", 32, prompt);
  }

  private static Map<String, String> headers() {
    return new HashMap<>(Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01",
        "content-type", "application/json"));
  }

  @Test
  void aBatchAfterThePrimaryHealedRunsOneTrialThenEveryJobOnThePrimary() throws Exception {
    harness = VirtualTime.start(clock, 9, VirtualTime.overloaded("claude-p", Duration.ZERO, Duration.ofSeconds(60)), """
        policy:
          retry: { max-retries: 0 }
          breaker: { failures: 3, window: 30s, open-for: 10s, close-after: 1 }
        models:
          smart: { chain: [emu/claude-p, emu/claude-f] }
        """ + DrainingQueue.section());
    for (int i = 0; i < 3; i++) { // the outage: the fallback answers, the primary's circuit opens
      HttpResponse<String> answered = harness.post("/v1/messages", body("during " + i), headers());
      assertThat(answered.statusCode()).as(answered.body()).isEqualTo(200);
      assertThat(answered.headers().firstValue("x-levee-model")).hasValue("emu/claude-f");
    }
    assertThat(harness.gateway.chain().breakers().of(PRIMARY).state()).isEqualTo(CircuitState.OPEN);
    clock.advance(Duration.ofSeconds(61)); // the primary healed; its open period is over, its trial not yet made
    int fallbackCallsBefore = harness.attempts("claude-f").size();

    String id = DrainingQueue.postBatch(harness, JOBS, "r", i -> body("after " + i), headers());
    JsonNode view = DrainingQueue.awaitEnded(harness, id);

    assertThat(view.at("/request_counts/succeeded").asInt()).as(view.toString()).isEqualTo(JOBS);
    assertThat(harness.attempts("claude-f").size() - fallbackCallsBefore).as("jobs of the batch answered by the fallback")
        .isZero();
    assertThat(harness.attempts("claude-p").stream().filter(call -> call.status() == 200).count())
        .as("the trial and then the backlog, each on the primary").isEqualTo(JOBS);
    assertThat(harness.gateway.chain().breakers().of(PRIMARY).state()).isEqualTo(CircuitState.CLOSED);
  }
}
