package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import dev.levee.emulator.Scenario;
import dev.levee.gateway.GatewayClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 13 phase 2, through the gateway against the emulator on virtual time (one {@link
 * ManualClock} for both, so a 2 s answer takes 2 s of policy time and no wall time): an alias
 * with {@code route: score} is ordered by the scoring router from what the gateway measured,
 * moves off a failing target and back, is paced by the rate-limit headers, and explains itself.
 */
class ScoreRoutingTest {

  private static final String POLICY = """
      policy:
        deadline: 10s
        attempt-timeout: 5s
        min-attempt-time: 10ms
        retry: { max-retries: 1, base-delay: 10ms, max-delay: 50ms }
        breaker: default
        retry-budget: { max: 100, ratio: 0.5 }
      admin: { token: admin-secret }
      tiers: { evaluate-every: 1h }   # tiers stay at T0: the router is the point here
      """;

  /** A slow model first in the chain, a fast one second, both assumed 500 ms until measured, under a 1,000 ms budget. */
  private static final String SLOW_AND_FAST = """
      models:
        smart:
          chain: [emu/emu-slow-ttft-2000, emu/emu-ok]
          route: score
          route-defaults: { task: code, latency-budget: 1000ms }
      routing:
        typical-latency: { emu-slow-ttft-2000: 500ms, emu-ok: 500ms }
      """ + POLICY;

  private static final Map<String, String> JSON = Map.of("x-api-key", "k", "content-type", "application/json");

  private final ManualClock clock = new ManualClock();

  @Test
  void theFastModelIsChosenOnceMeasuredTrafficLeavesItWhileItFailsAndComesBackWhenItRecovers() throws Exception {
    Scenario fastFails = Scenario.builder()
        .phase(Scenario.Phase.builder().model("emu-ok").from(Duration.ofSeconds(20)).to(Duration.ofSeconds(60))
            .status(529).build())
        .build();
    try (Harness h = start(fastFails, SLOW_AND_FAST)) {
      HttpResponse<String> first = ask(h, "smart", "first");
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(first.headers().firstValue("x-levee-model")).as("unmeasured, equal scores: chain order")
          .contains("emu/emu-slow-ttft-2000");
      assertThat(first.headers().firstValue("x-levee-route").orElseThrow())
          .matches("emu-slow-ttft-2000=\\d+\\.\\d;emu-ok=\\d+\\.\\d");

      for (int i = 0; i < 3; i++) {
        HttpResponse<String> measured = ask(h, "smart", "measured " + i);
        assertThat(measured.headers().firstValue("x-levee-model")).as("the slow one measured 2 s > budget")
            .contains("emu/emu-ok");
        assertThat(measured.headers().firstValue("x-levee-route").orElseThrow()).startsWith("emu-ok=");
        assertThat(measured.headers().firstValue("x-levee-attempts")).contains("1");
      }

      clock.advance(Duration.ofSeconds(20)); // the fast one fails from 20 s to 60 s
      int movedAfter = firstIndex(h, "smart", 8, r -> r.headers().firstValue("x-levee-route").orElseThrow()
          .startsWith("emu-slow-ttft-2000="));
      assertThat(movedAfter).as("requests until the router puts the slow one first").isBetween(1, 5);

      clock.advance(Duration.ofSeconds(45)); // recovered, and the fast one's breaker may admit a trial
      int backAfter = firstIndex(h, "smart", 8,
          r -> r.headers().firstValue("x-levee-model").orElseThrow().equals("emu/emu-ok"));
      assertThat(backAfter).as("requests until the fast one answers again").isBetween(1, 3);
      HttpResponse<String> settled = ask(h, "smart", "settled");
      assertThat(settled.headers().firstValue("x-levee-model")).contains("emu/emu-ok");
      assertThat(settled.headers().firstValue("x-levee-attempts")).contains("1");
    }
  }

  @Test
  void aDecisionIsExplainedOnAdminRouteHealthAndMetrics() throws Exception {
    try (Harness h = start(null, SLOW_AND_FAST)) {
      ask(h, "smart", "measure the slow one");
      ask(h, "smart", "measure the fast one");

      HttpResponse<String> streamed = h.post("/v1/messages", "{\"model\":\"smart\",\"max_tokens\":64,\"stream\":true,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"a stream\"}]}", JSON);
      assertThat(streamed.statusCode()).isEqualTo(200);
      assertThat(streamed.body()).contains("message_stop");
      assertThat(streamed.headers().firstValue("x-levee-route").orElseThrow()).startsWith("emu-ok=");

      HttpResponse<String> route = admin(h, "/admin/route?alias=smart&task=simple&prefer=cost", "admin-secret");
      assertThat(route.statusCode()).isEqualTo(200);
      JsonNode body = Json.tryParse(route.body());
      assertThat(body.path("chosen").asText()).isEqualTo("emu/emu-ok");
      assertThat(body.path("request").path("task").asText()).isEqualTo("simple");
      assertThat(body.path("request").path("prefer").asText()).isEqualTo("cost");
      assertThat(body.path("request").path("latency_budget_ms").asLong()).isEqualTo(1000);
      assertThat(body.path("candidates")).hasSize(2);
      JsonNode slow = body.path("candidates").get(1);
      assertThat(slow.path("target").asText()).isEqualTo("emu/emu-slow-ttft-2000");
      assertThat(slow.path("latency").asDouble()).as("p95 2 s over a 1 s budget").isZero();
      assertThat(slow.path("p95_ms").asLong()).isBetween(1980L, 2020L);
      assertThat(body.path("explain").asText()).startsWith("emu-ok=");

      assertThat(admin(h, "/admin/route?alias=smart", "wrong").statusCode()).isEqualTo(401);
      assertThat(admin(h, "/admin/route?alias=nope", "admin-secret").statusCode()).isEqualTo(404);
      HttpResponse<String> badTask = admin(h, "/admin/route?alias=smart&task=poetry", "admin-secret");
      assertThat(badTask.statusCode()).isEqualTo(400);
      assertThat(badTask.body()).contains("invalid_request_error").contains("simple, complex, creative or code");

      JsonNode targets = Json.tryParse(h.get("/health").body()).path("targets");
      assertThat(targets.path("emu/emu-slow-ttft-2000").path("ema_p95_ms").asLong()).isBetween(1980L, 2020L);
      assertThat(targets.path("emu/emu-slow-ttft-2000").path("ema_p95_measured").asBoolean()).isTrue();
      assertThat(targets.path("emu/emu-ok").path("ema_success").asDouble()).isEqualTo(1.0);

      String metrics = h.awaitMetrics("levee_route_choices_total{alias=\"smart\",model=\"emu-ok\"}");
      assertThat(RateLimitCooldownTest.metric(metrics, "levee_route_choices_total", "model=\"emu-ok\""))
          .isEqualTo(2.0); // the JSON answer and the stream
      assertThat(RateLimitCooldownTest.metric(metrics, "levee_route_choices_total", "model=\"emu-slow-ttft-2000\""))
          .isEqualTo(1.0);
    }
  }

  @Test
  void aBadRoutingHeaderIsRefusedAtIngressWithoutAnUpstreamCall() throws Exception {
    try (Harness h = start(null, SLOW_AND_FAST)) {
      for (Map.Entry<String, String> bad : Map.of("x-levee-task", "poetry", "x-levee-prefer", "cheap",
          "x-levee-latency-budget", "soon").entrySet()) {
        Map<String, String> headers = new HashMap<>(JSON);
        headers.put(bad.getKey(), bad.getValue());
        HttpResponse<String> refused = h.post("/v1/messages", body("smart", "bad " + bad.getKey()), headers);

        assertThat(refused.statusCode()).isEqualTo(400);
        JsonNode error = Json.tryParse(refused.body());
        assertThat(error.path("type").asText()).isEqualTo("error");
        assertThat(error.path("error").path("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.path("error").path("message").asText()).startsWith(bad.getKey() + ":");
      }
      assertThat(h.emulator.log()).isEmpty();

      Map<String, String> good = new HashMap<>(JSON);
      good.put("x-levee-task", "simple");
      good.put("x-levee-latency-budget", "5s");
      good.put("x-levee-prefer", "quality");
      assertThat(h.post("/v1/messages", body("smart", "fine"), good).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aTargetEnforcing10RequestsPerMinuteIsPacedNo429ReachesTheClientAndTheOtherServesTheRest() throws Exception {
    String config = """
        models:
          paced:
            chain: [emu/emu-ok-limit-10r, emu/emu-ok]
            route: score
        """ + POLICY;
    try (Harness h = start(null, config)) {
      List<HttpResponse<String>> answers = new ArrayList<>();
      for (int i = 0; i < 30; i++) { // 30 requests in 5 s
        answers.add(ask(h, "paced", "request " + i));
        clock.advance(Duration.ofMillis(5000 / 30));
      }

      assertThat(answers).allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(200));
      List<LogEntry> limited = h.attempts("emu-ok-limit-10r");
      assertThat(limited.stream().filter(e -> e.status() == 200)).hasSize(10);
      assertThat(limited.stream().filter(e -> e.status() == 429)).as("at most one 429 from the upstream").hasSizeLessThanOrEqualTo(1);
      assertThat(h.attempts("emu-ok").stream().filter(e -> e.status() == 200)).hasSize(20);
      assertThat(answers.subList(10, 30)).allSatisfy(r ->
          assertThat(r.headers().firstValue("x-levee-model")).contains("emu/emu-ok"));
    }
  }

  @Test
  void anOnlyCandidateOutOfRequestsWaitsForItsResetWhenTheDeadlineHoldsIt() throws Exception {
    String config = """
        models:
          single:
            chain: [emu/emu-ok-limit-2r-per-5s]
            route: score
        """ + POLICY;
    try (Harness h = start(null, config)) {
      assertThat(ask(h, "single", "one").statusCode()).isEqualTo(200);
      assertThat(ask(h, "single", "two").statusCode()).isEqualTo(200);

      long start = clock.nanos();
      HttpResponse<String> third = ask(h, "single", "three");

      assertThat(third.statusCode()).isEqualTo(200);
      assertThat(Duration.ofNanos(clock.nanos() - start)).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(6));
      assertThat(h.attempts("emu-ok-limit-2r-per-5s")).extracting(LogEntry::status).containsExactly(200, 200, 200);
    }
  }

  @Test
  void aResetPastTheDeadlineIsRefusedAtOnceWith429AndNoUpstreamCall() throws Exception {
    String config = """
        models:
          single:
            chain: [emu/emu-ok-limit-1r]
            route: score
        """ + POLICY;
    try (Harness h = start(null, config)) {
      assertThat(ask(h, "single", "one").statusCode()).isEqualTo(200);

      long start = clock.nanos();
      HttpResponse<String> refused = ask(h, "single", "two");

      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(Json.tryParse(refused.body()).path("error").path("type").asText()).isEqualTo("rate_limit_error");
      assertThat(Json.tryParse(refused.body()).path("error").path("message").asText())
          .contains("No target's rate limit covers this request before its reset");
      assertThat(Long.parseLong(refused.headers().firstValue("retry-after").orElseThrow()))
          .as("the window's reset, a whole second rounded up").isBetween(50L, 61L);
      assertThat(refused.headers().firstValue("x-levee-route")).isPresent();
      assertThat(Duration.ofNanos(clock.nanos() - start)).as("the 10 s deadline is not waited out").isLessThan(Duration.ofSeconds(1));
      assertThat(h.attempts("emu-ok-limit-1r")).hasSize(1);
    }
  }

  @Test
  void routingNeverOverridesAClientError() throws Exception {
    String config = """
        models:
          smart:
            chain: [emu/emu-400, emu/emu-ok]
            route: score
        """ + POLICY;
    try (Harness h = start(null, config)) {
      HttpResponse<String> rejected = ask(h, "smart", "malformed on purpose");

      assertThat(rejected.statusCode()).isEqualTo(400);
      assertThat(rejected.headers().firstValue("x-levee-attempts")).contains("1");
      assertThat(rejected.headers().firstValue("x-levee-route")).isPresent();
      assertThat(h.attempts("emu-ok")).isEmpty();
      JsonNode health = Json.tryParse(h.get("/health").body()).path("targets");
      assertThat(health.path("emu/emu-400").path("ema_success").asDouble())
          .as("the client's own error says nothing of the target").isEqualTo(1.0);
    }
  }

  /** Asks until {@code condition} holds, at most {@code max} times; returns the 1-based index, or max + 1. */
  private static int firstIndex(Harness h, String alias, int max,
      java.util.function.Predicate<HttpResponse<String>> condition) throws Exception {
    for (int i = 1; i <= max; i++) {
      HttpResponse<String> r = ask(h, alias, "probe " + i + " " + System.nanoTime());
      assertThat(r.statusCode()).isEqualTo(200);
      if (condition.test(r)) {
        return i;
      }
    }
    return max + 1;
  }

  private static HttpResponse<String> ask(Harness h, String alias, String prompt) throws Exception {
    return h.post("/v1/messages", body(alias, prompt), JSON);
  }

  private static String body(String model, String prompt) {
    return "{\"model\":\"" + model + "\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
  }

  private static HttpResponse<String> admin(Harness h, String pathAndQuery, String token) throws Exception {
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + pathAndQuery))
          .header("authorization", "Bearer " + token).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  private Harness start(Scenario scenario, String yaml) throws Exception {
    EmulatorOptions.Builder options = VirtualTime.emulator(clock);
    if (scenario != null) {
      options.scenario(scenario);
    }
    GatewayClock virtual = VirtualTime.gateway(clock, 7);
    return Harness.start(options.build(), yaml, "", virtual);
  }
}
