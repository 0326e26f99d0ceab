package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.levee.anthropic.Json;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.Scenario;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 12, section 3, per feature ({@code features.<name>.on-outage: queue}): the outage test
 * end to end — every target down, a fail-closed feature's request answered 503 with a job id,
 * the targets back (the emulator's scenario ends), the job's answer there and posted to the
 * feature's {@code callback-url} once — and the same queueing at T3 and in degraded mode.
 */
class FeatureOutageQueueEndToEndTest {

  private final ManualClock emulatorClock = new ManualClock(); // the incident ends when the test says
  private final List<String> received = new CopyOnWriteArrayList<>();
  private Harness harness;
  private HttpServer receiver;

  @AfterEach
  void stop() throws Exception {
    if (harness != null) {
      harness.close();
    }
    if (receiver != null) {
      receiver.stop(0);
    }
  }

  private void start(boolean outage) throws Exception {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext("/hook", exchange -> {
      received.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
    });
    receiver.start();
    Scenario.Builder scenario = Scenario.builder();
    if (outage) { // every model answers 503 for the first minute of emulator time
      scenario.phase(Scenario.Phase.builder().to(Duration.ofSeconds(60)).status(503).build());
    }
    EmulatorOptions options = EmulatorOptions.builder().ticker(emulatorClock).scenario(scenario.build())
        .timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO).build();
    harness = Harness.start(options, """
        policy:
          retry: { max-retries: 0 }
          breaker: { failures: 50, window: 30s, open-for: 200ms, close-after: 1 }
        tiers: { evaluate-every: 1h }
        models:
          smart: { chain: [emu/claude-a, emu/claude-b] }
        features:
          reports: { fail-mode: closed, on-outage: queue, callback-url: "http://127.0.0.1:%d/hook" }
          chat: { on-outage: queue, queued-text: "Queued as {job}; the answer follows." }
          plain: { fail-mode: closed }
        queue:
          folder: ${QUEUE}
          secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
          poll: 50ms
          retry-delay: 100ms
        """.formatted(receiver.getAddress().getPort()));
  }

  private static String body(String prompt, boolean stream) {
    return "{\"model\":\"smart\",\"max_tokens\":32,\"stream\":" + stream
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
  }

  private static Map<String, String> headers(String feature, String... more) {
    Map<String, String> h = new HashMap<>(Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01",
        "content-type", "application/json", "x-levee-feature", feature));
    for (int i = 0; i < more.length; i += 2) {
      h.put(more[i], more[i + 1]);
    }
    return h;
  }

  private JsonNode job(String id) throws Exception {
    return Json.tryParse(harness.getWith("/v1/levee/jobs/" + id, "sk-a").body());
  }

  private JsonNode awaitEnded(String id) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    JsonNode view;
    do {
      Thread.sleep(50); // polling a real server, as a client would
      view = job(id);
    } while (!view.get("state").asText().matches("succeeded|failed|cancelled|expired") && System.nanoTime() < until);
    return view;
  }

  @Test
  void everyTargetDownAFailClosedRequestGetsAJobIdAndTheAnswerArrivesOnceTheTargetsAreBack() throws Exception {
    start(true);

    HttpResponse<String> queued = harness.post("/v1/messages", body("quarterly numbers", false), headers("reports"));
    HttpResponse<String> notQueued = harness.post("/v1/messages", body("other feature", false), headers("plain"));

    assertThat(queued.statusCode()).isEqualTo(503);
    String id = Json.tryParse(queued.body()).at("/error/job_id").asText();
    assertThat(id).startsWith("job_");
    assertThat(queued.headers().firstValue("x-levee-job")).hasValue(id);
    assertThat(queued.headers().firstValue("retry-after")).isPresent();
    assertThat(notQueued.statusCode()).isEqualTo(503);
    assertThat(notQueued.headers().firstValue("x-levee-job")).isEmpty();
    harness.awaitLog(log -> log.size() >= 6); // the job has been tried again (and failed) while the targets are down
    assertThat(job(id).get("state").asText()).isIn("queued", "running");

    emulatorClock.advance(Duration.ofSeconds(61)); // the incident is over

    JsonNode done = awaitEnded(id);
    assertThat(done.get("state").asText()).isEqualTo("succeeded");
    assertThat(done.at("/result/status").asInt()).isEqualTo(200);
    assertThat(done.at("/result/body/type").asText()).isEqualTo("message");
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!"delivered".equals(job(id).path("callback_state").asText()) && System.nanoTime() < until) {
      Thread.sleep(50);
    }
    assertThat(received).hasSize(1);
    assertThat(Json.tryParse(received.getFirst()).get("id").asText()).isEqualTo(id);
    assertThat(Json.tryParse(received.getFirst()).at("/result/body/type").asText()).isEqualTo("message");
    assertThat(harness.awaitMetrics("levee_jobs{feature=\"reports\",state=\"succeeded\"} 1.0"))
        .contains("levee_jobs{feature=\"reports\",state=\"succeeded\"} 1.0")
        .contains("levee_jobs{feature=\"reports\",state=\"queued\"} 0.0")
        .contains("levee_jobs_oldest_queued_seconds{feature=\"reports\"} 0.0");
  }

  @Test
  void atT3AQueueingFeaturesRequestBecomesAJobThatRunsOnceTheTierIsBack() throws Exception {
    start(false);
    harness.gateway.tiers().controller("reports").force(Tier.T3, Duration.ofMinutes(5));

    HttpResponse<String> queued = harness.post("/v1/messages", body("at T3", false), headers("reports"));
    HttpResponse<String> stream = harness.post("/v1/messages", body("a stream at T3", true), headers("reports"));

    assertThat(queued.statusCode()).isEqualTo(503);
    String id = queued.headers().firstValue("x-levee-job").orElseThrow();
    assertThat(Json.tryParse(queued.body()).at("/error/job_id").asText()).isEqualTo(id);
    assertThat(stream.statusCode()).as("a stream has no later").isEqualTo(503);
    assertThat(stream.headers().firstValue("x-levee-job")).isEmpty();
    Thread.sleep(300); // several polls: the job waits while its feature is at T3
    assertThat(job(id).get("state").asText()).isEqualTo("queued");
    assertThat(harness.emulator.log()).isEmpty();

    harness.gateway.tiers().controller("reports").clearForce();

    assertThat(awaitEnded(id).get("state").asText()).isEqualTo("succeeded");
  }

  @Test
  void inDegradedModeLowPriorityRequestsAreQueuedWithTheQueuedTextAndHighOnesGoUpstream() throws Exception {
    start(false);
    harness.gateway.tiers().controller("chat").force(Tier.T1, Duration.ofMinutes(5));

    HttpResponse<String> low = harness.post("/v1/messages", body("can wait", false), headers("chat"));
    HttpResponse<String> high = harness.post("/v1/messages", body("needs it now", false),
        headers("chat", "x-levee-priority", "8"));

    assertThat(low.statusCode()).as("fail-open: a message the client can show").isEqualTo(200);
    String id = low.headers().firstValue("x-levee-job").orElseThrow();
    assertThat(Json.tryParse(low.body()).at("/content/0/text").asText())
        .isEqualTo("Queued as " + id + "; the answer follows.");
    assertThat(high.statusCode()).isEqualTo(200);
    assertThat(high.headers().firstValue("x-levee-job")).isEmpty();
    assertThat(high.headers().firstValue("x-levee-tier")).hasValue("T1");
    assertThat(harness.emulator.log()).extracting(e -> e.model()).containsExactly("claude-b"); // the reduced target
    Thread.sleep(300); // several polls: queued work waits while the feature is degraded
    assertThat(job(id).get("state").asText()).isEqualTo("queued");

    harness.gateway.tiers().controller("chat").clearForce();

    JsonNode done = awaitEnded(id);
    assertThat(done.get("state").asText()).isEqualTo("succeeded");
    assertThat(done.at("/result/headers/x-levee-tier/0").asText()).isEqualTo("T0");
    assertThat(harness.emulator.log()).extracting(e -> e.model()).containsExactly("claude-b", "claude-a");
  }
}
