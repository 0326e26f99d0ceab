package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.Scenario;
import dev.levee.gateway.jobs.JobStore;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (the outage-queue sibling of {@link BatchWithoutKeyRegressionTest}): a {@code
 * /v1/messages} request without an API key (none, an empty {@code x-api-key}, or {@code
 * authorization: Bearer } with nothing after it), of a feature with {@code on-outage: queue}, for
 * an alias whose every target's upstream has no {@code api-key} of its own, was queued — the
 * client told "queued as job …" — although the job could only ever end with the upstream's 401.
 * Such a request is no longer queued: it gets what it would have got without {@code on-outage}
 * (the outage error when every target failed, the T3 answer, or — in degraded mode — the
 * upstream's own 401), and nothing is stored. An alias with a target whose upstream holds its own
 * key still queues a request without one, and a request with a key is queued as before.
 */
class KeylessRequestNotQueuedRegressionTest {

  /** {@code emu} (the Harness's, no key of its own) and {@code owned}, which holds one. */
  private static final String CONFIG = """
        owned:
          url: ${EMU}
          api-key: sk-gateway-own
      policy:
        retry: { max-retries: 0 }
        breaker: { failures: 2, window: 30s, open-for: 10m }
      tiers: { evaluate-every: 1h }
      models:
        chat: { chain: [emu/claude-a] }
        owned: { chain: [owned/claude-a] }
      features:
        reports: { fail-mode: closed, on-outage: queue }
        notes: { on-outage: queue }
        plain: { fail-mode: closed }
      """;

  /** The ways a request carries no usable key. */
  private static final List<Map<String, String>> KEYLESS =
      List.of(Map.of(), Map.of("x-api-key", ""), Map.of("authorization", "Bearer "));

  @ParameterizedTest(name = "queue.secret set: {0}")
  @ValueSource(booleans = {false, true})
  void atT3OrDegradedAKeylessRequestIsAnsweredAsWithoutQueueingAndNothingIsStored(boolean secret) throws Exception {
    ManualClock clock = new ManualClock();
    try (Harness h = VirtualTime.start(clock, 1, Scenario.builder().build(), CONFIG + queue(secret))) {
      h.gateway.tiers().controller("reports").force(Tier.T3, Duration.ofMinutes(5));
      h.gateway.tiers().controller("notes").force(Tier.T1, Duration.ofMinutes(5));

      for (Map<String, String> keyless : KEYLESS) {
        HttpResponse<String> paused = send(h, "chat", "reports", keyless);
        assertThat(paused.statusCode()).as("%s: %s", keyless.keySet(), paused.body()).isEqualTo(503);
        assertThat(paused.headers().firstValue("x-levee-job")).as("%s: not queued", keyless.keySet()).isEmpty();
        assertThat(Json.tryParse(paused.body()).at("/error/job_id").isMissingNode()).isTrue();

        HttpResponse<String> degraded = send(h, "chat", "notes", keyless);
        assertThat(degraded.statusCode()).as("%s: the upstream's own answer: %s", keyless.keySet(), degraded.body())
            .isEqualTo(401);
        assertThat(degraded.headers().firstValue("x-levee-job")).isEmpty();
        assertThat(Json.tryParse(degraded.body()).at("/error/type").asText()).isEqualTo("authentication_error");
      }
      assertThat(jobs(h)).as("nothing stored").isZero();

      HttpResponse<String> keyed = send(h, "chat", "reports", Map.of("x-api-key", "sk-a"));
      assertThat(keyed.headers().firstValue("x-levee-job").isPresent())
          .as("a request with a key is queued as before (when its key can be sealed)").isEqualTo(secret);
      assertThat(send(h, "owned", "reports", Map.of()).headers().firstValue("x-levee-job"))
          .as("an upstream with its own key answers a request without one").isPresent();
      assertThat(jobs(h)).isEqualTo(secret ? 2 : 1);
    }
  }

  @ParameterizedTest(name = "queue.secret set: {0}")
  @ValueSource(booleans = {false, true})
  void everyTargetDownAKeylessRequestGetsTheOutageErrorAndNothingIsStored(boolean secret) throws Exception {
    ManualClock clock = new ManualClock();
    Scenario outage = Scenario.builder().phase(Scenario.Phase.builder().status(529).build()).build();
    try (Harness h = VirtualTime.start(clock, 1, outage, CONFIG + queue(secret))) {
      send(h, "chat", "plain", Map.of("x-api-key", "sk-a"));
      send(h, "chat", "plain", Map.of("x-api-key", "sk-a")); // two failures: emu/claude-a's circuit opens
      HttpResponse<String> withoutQueueing = send(h, "chat", "plain", Map.of());
      String outageError = Json.tryParse(withoutQueueing.body()).at("/error/type").asText();
      assertThat(h.emulator.log()).as("the open circuit is not called").hasSize(2);

      for (Map<String, String> keyless : KEYLESS) {
        HttpResponse<String> failed = send(h, "chat", "reports", keyless);

        assertThat(failed.statusCode()).as("%s: %s", keyless.keySet(), failed.body())
            .isEqualTo(withoutQueueing.statusCode());
        assertThat(failed.headers().firstValue("x-levee-job")).as("%s: not queued", keyless.keySet()).isEmpty();
        JsonNode error = Json.tryParse(failed.body()).path("error");
        assertThat(error.path("job_id").isMissingNode()).isTrue();
        assertThat(error.path("type").asText()).isEqualTo(outageError);
      }
      assertThat(jobs(h)).as("nothing stored").isZero();

      assertThat(send(h, "owned", "reports", Map.of()).headers().firstValue("x-levee-job"))
          .as("an upstream with its own key answers a request without one").isPresent();
      assertThat(jobs(h)).isEqualTo(1);
    }
  }

  private static HttpResponse<String> send(Harness h, String model, String feature, Map<String, String> key)
      throws Exception {
    Map<String, String> headers = new HashMap<>(key);
    headers.put("x-levee-feature", feature);
    return h.post("/v1/messages", "{\"model\":\"" + model + "\",\"max_tokens\":16,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"later\"}]}", headers);
  }

  /** Every job stored, in any state. */
  private static long jobs(Harness h) {
    return h.gateway.work().jobs().counts().stream().mapToLong(JobStore.Count::jobs).sum();
  }

  private static String queue(boolean secret) throws Exception {
    return "queue:\n  folder: " + Files.createTempDirectory("levee-keyless-queue") + "\n"
        + (secret ? "  secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n" : "");
  }
}
