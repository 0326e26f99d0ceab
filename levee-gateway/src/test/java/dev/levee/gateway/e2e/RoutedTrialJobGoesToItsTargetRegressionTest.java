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
 * Review: a queued job that is a target's half-open trial (the workers took the trial permit
 * before claiming it) went wherever the plan put it first. For an alias with {@code route: score}
 * the router ranks the healed primary, with its outage in its success average, below the fallback,
 * so the trial job was answered by the fallback, its permit released unused, and the next trial job
 * likewise: the primary was never tested and the batch drained through the fallback one trial job
 * at a time. A trial job's first call now goes to the target whose trial it holds.
 *
 * <p>{@link BacklogAfterHealRunsOnThePrimaryRegressionTest}, with the alias routed.
 */
class RoutedTrialJobGoesToItsTargetRegressionTest {

  private static final Target PRIMARY = new Target("emu", "claude-p");
  private static final int JOBS = 6;

  private final ManualClock clock = new ManualClock();
  @AutoClose
  private Harness harness;

  private static String body(String prompt) {
    return body("smart", prompt);
  }

  private static String body(String alias, String prompt) {
    return ClientRequests.message(alias, 32, prompt);
  }

  private static Map<String, String> headers() {
    return new HashMap<>(Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01",
        "content-type", "application/json"));
  }

  @Test
  void aRoutedAliasTrialJobTestsThePrimaryAndTheBacklogRunsThere() throws Exception {
    harness = VirtualTime.start(clock, 9, VirtualTime.overloaded("claude-p", Duration.ZERO, Duration.ofSeconds(60)), """
        policy:
          retry: { max-retries: 0 }
          breaker: { failures: 3, window: 30s, open-for: 10s, close-after: 1 }
        models:
          smart: { chain: [emu/claude-p, emu/claude-f], route: score }
          direct: { chain: [emu/claude-p, emu/claude-f] }
        """ + DrainingQueue.section());
    for (int i = 0; i < 3; i++) { // the outage, through an unrouted alias: the fallback answers, the primary's circuit opens
      HttpResponse<String> answered = harness.post("/v1/messages", body("direct", "during " + i), headers());
      assertThat(answered.statusCode()).as(answered.body()).isEqualTo(200);
      assertThat(answered.headers().firstValue("x-levee-model")).hasValue("emu/claude-f");
    }
    assertThat(harness.gateway.chain().breakers().of(PRIMARY).state()).isEqualTo(CircuitState.OPEN);
    clock.advance(Duration.ofSeconds(61)); // the primary healed; its open period is over, its trial not yet made
    int fallbackCallsBefore = harness.attempts("claude-f").size();

    String id = DrainingQueue.postBatch(harness, JOBS, "r", i -> body("after " + i), headers());
    JsonNode view = DrainingQueue.awaitEnded(harness, id);

    assertThat(view.at("/request_counts/succeeded").asInt()).as(view.toString()).isEqualTo(JOBS);
    assertThat(harness.attempts("claude-p").stream().filter(call -> call.status() == 200).count())
        .as("the trial job's call went to the primary").isPositive();
    assertThat(harness.gateway.chain().breakers().of(PRIMARY).state()).as("the trial closed the circuit")
        .isEqualTo(CircuitState.CLOSED);
    assertThat(harness.attempts("claude-f").size() - fallbackCallsBefore)
        .as("old: every job, each a trial job answered by the fallback").isLessThan(JOBS);
  }
}
