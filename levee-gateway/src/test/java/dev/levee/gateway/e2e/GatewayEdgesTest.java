package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.models.messages.Message;
import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.breaker.CircuitBreaker;
import dev.levee.core.breaker.CircuitState;
import dev.levee.core.chain.Target;
import dev.levee.core.time.ManualClock;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.emulator.LogEntry;
import dev.levee.emulator.Scenario;
import dev.levee.gateway.GatewayClock;
import java.io.ByteArrayOutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Ingress refusals, health, the breaker's full cycle and client disconnects. */
class GatewayEdgesTest {

  private static final Map<String, String> JSON = Map.of("x-api-key", "k", "content-type", "application/json");

  @Test
  void malformedJsonIsRefusedWith400AndNeverForwarded() throws Exception {
    try (Harness h = Harness.start(Harness.BASE_POLICY)) {
      HttpResponse<String> response = h.post("/v1/messages", "{\"model\": \"emu-ok\", \"messages\": [", JSON);

      assertThat(response.statusCode()).isEqualTo(400);
      assertThat(response.headers().firstValue("x-levee-request-id")).hasValueSatisfying(id -> assertThat(id).startsWith("lv_"));
      JsonNode body = Json.tryParse(response.body());
      assertThat(body.path("type").asText()).isEqualTo("error");
      assertThat(body.path("error").path("type").asText()).isEqualTo("invalid_request_error");
      assertThat(body.path("error").path("message").asText()).doesNotContain("[Source");
      assertThat(body.path("request_id").asText()).startsWith("lv_");
      assertThat(h.emulator.log()).isEmpty();
    }
  }

  /**
   * Regression: Jetty refused these before any handler ran, with its own HTML page. Regression
   * (session 4 leftover): they carried no request id and left no trace in the access log or
   * metrics; they are now named and counted like the guard's own refusals.
   */
  @Test
  void requestsJettyRefusesGetTheApisErrorShape() throws Exception {
    try (Harness h = Harness.start(Harness.BASE_POLICY)) {
      for (String path : new String[] {"/v1//messages", "/v1/models/..%2f..%2fhealth"}) {
        assertApiShaped(h.post(path, "{}", JSON), 400, "invalid_request_error");
      }
      String tooLarge = oneAnswer(h, "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n"
          + "x-long: " + "x".repeat(20_000) + "\r\ncontent-length: 2\r\n\r\n{}");
      assertThat(tooLarge).startsWith("HTTP/1.1 431 ");
      assertThat(header(tooLarge, "content-type")).startsWith("application/json");
      JsonNode refusal = RawHttp.body(tooLarge);
      assertThat(refusal).as(tooLarge).isNotNull();
      assertThat(refusal.path("type").asText()).isEqualTo("error");
      assertThat(refusal.path("error").path("type").asText()).isEqualTo("invalid_request_error");
      assertThat(refusal.path("error").path("message").asText()).isNotBlank();
      assertThat(refusal.path("request_id").asText()).startsWith("lv_");
      assertThat(header(tooLarge, "x-levee-request-id")).isEqualTo(refusal.path("request_id").asText());
      assertThat(h.emulator.log()).isEmpty();
      String counted = "levee_requests_total{endpoint=\"other\",outcome=\"refused\",tier=\"-\"} 2.0"; // after the answer
      String headersTooLarge = "levee_requests_total{endpoint=\"messages\",outcome=\"refused\",tier=\"-\"} 1.0";
      assertThat(h.awaitMetrics(counted)).contains(counted);
      assertThat(h.awaitMetrics(headersTooLarge)).contains(headersTooLarge);
    }
  }

  /**
   * Writes {@code request} whole on a new connection, then reads one answer: its head and the body
   * its content-length gives. The JDK's client was not used for an oversized head: the gateway
   * answers 431 and closes with the rest of the request unread, and a client still writing then
   * (the JDK's, on a loaded box) failed with "Broken pipe" and never read the answer it was sent.
   */
  private static String oneAnswer(Harness h, String request) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", h.gateway.baseUrl().getPort())) {
      socket.setSoTimeout(20_000);
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      ByteArrayOutputStream received = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      while (!whole(received.toString(StandardCharsets.UTF_8))) {
        int n = socket.getInputStream().read(buffer);
        if (n < 0) {
          break;
        }
        received.write(buffer, 0, n);
      }
      return received.toString(StandardCharsets.UTF_8);
    }
  }

  /** Whether {@code answer} holds a whole head and as many body bytes as its content-length says. */
  private static boolean whole(String answer) {
    int end = answer.indexOf("\r\n\r\n");
    if (end < 0) {
      return false;
    }
    String length = header(answer, "content-length");
    return length != null && answer.getBytes(StandardCharsets.UTF_8).length - (end + 4) >= Integer.parseInt(length);
  }

  /** The value of the first header {@code name} in a raw answer's head, or null. */
  private static String header(String answer, String name) {
    int end = answer.indexOf("\r\n\r\n");
    for (String line : answer.substring(0, end < 0 ? answer.length() : end).split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
        return line.substring(colon + 1).trim();
      }
    }
    return null;
  }

  private static void assertApiShaped(HttpResponse<String> response, int status, String type) {
    assertThat(response.statusCode()).isEqualTo(status);
    assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
    JsonNode body = Json.tryParse(response.body());
    assertThat(body).as(response.body()).isNotNull();
    assertThat(body.path("type").asText()).isEqualTo("error");
    assertThat(body.path("error").path("type").asText()).isEqualTo(type);
    assertThat(body.path("error").path("message").asText()).isNotBlank();
    assertThat(body.path("request_id").asText()).startsWith("lv_");
    assertThat(response.headers().firstValue("x-levee-request-id")).contains(body.path("request_id").asText());
  }

  @Test
  void aBodyWithoutAModelIsRefusedLikeTheApiDoes() throws Exception {
    try (Harness h = Harness.start(Harness.BASE_POLICY)) {
      HttpResponse<String> response = h.post("/v1/messages", "{\"max_tokens\": 5, \"messages\": []}", JSON);

      assertThat(response.statusCode()).isEqualTo(400);
      assertThat(Json.tryParse(response.body()).path("error").path("message").asText()).isEqualTo("model: Field required");
      assertThat(h.emulator.log()).isEmpty();
    }
  }

  @Test
  void aBodyOverTheLimitIsRefusedWith413AndNeverForwarded() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), Harness.BASE_POLICY, "max-body: 1KiB")) {
      String big = "{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(2000) + "\"}]}";
      HttpResponse<String> response = h.post("/v1/messages", big, JSON);

      assertThat(response.statusCode()).isEqualTo(413);
      assertThat(Json.tryParse(response.body()).path("error").path("type").asText()).isEqualTo("request_too_large");
      assertThat(Json.tryParse(response.body()).path("error").path("message").asText())
          .as("the limit in the unit it was configured in (newcomer trial, session 11: it said 33554432 bytes)")
          .isEqualTo("request body exceeds the gateway's limit of 1 KiB (1024 bytes)");
      assertThat(h.emulator.log()).isEmpty();
    }
  }

  @Test
  void listingModelsPassesThroughToTheFirstUpstream() throws Exception {
    try (Harness h = Harness.start(Harness.BASE_POLICY)) {
      var models = h.sdk.models().list();

      assertThat(models.data()).isNotEmpty();
    }
  }

  @Test
  void healthAndMetricsAnswerOnlyGet() throws Exception {
    try (Harness h = Harness.start(Harness.BASE_POLICY)) {
      for (String path : new String[] {"/health", "/metrics"}) {
        HttpResponse<String> response = h.post(path, "", Map.of());
        assertApiShaped(response, 405, "invalid_request_error");
        assertThat(response.headers().firstValue("allow")).contains("GET, HEAD");
      }
      assertThat(h.get("/v1/messages").headers().firstValue("allow")).contains("POST");
    }
  }

  /** Regression (newcomer trial): a 404 or 405 had an id "as in the access log" but no line there and no count. */
  @Test
  void unknownPathsGetAnAnthropicShaped404AndAreCountedLikeEveryRefusal() throws Exception {
    try (Harness h = Harness.start(Harness.BASE_POLICY)) {
      HttpResponse<String> response = h.get("/v1/nothing-here");

      assertThat(response.statusCode()).isEqualTo(404);
      assertThat(Json.tryParse(response.body()).path("error").path("type").asText()).isEqualTo("not_found_error");
      assertThat(h.get("/v1/messages").statusCode()).isEqualTo(405);
      String counted = "levee_requests_total{endpoint=\"other\",outcome=\"refused\",tier=\"-\"} 1.0"; // after the answer
      String refused405 = "levee_requests_total{endpoint=\"messages\",outcome=\"refused\",tier=\"-\"} 1.0";
      assertThat(h.awaitMetrics(counted, refused405)).contains(counted).contains(refused405);
    }
  }

  @Test
  void healthReportsEveryTargetWithoutCallingAnyUpstream() throws Exception {
    try (Harness h = Harness.start("models:\n  smart:\n    chain: [emu/emu-ok, emu/claude-b]\n" + Harness.BASE_POLICY)) {
      h.sdk.messages().create(Harness.params("smart", "health one"));
      int calls = h.emulator.log().size();

      HttpResponse<String> response = h.get("/health");

      assertThat(response.statusCode()).isEqualTo(200);
      JsonNode health = Json.tryParse(response.body());
      assertThat(health.path("status").asText()).isEqualTo("healthy");
      JsonNode primary = health.path("targets").path("emu/emu-ok");
      assertThat(primary.path("circuit").asText()).isEqualTo("CLOSED");
      assertThat(primary.path("success_rate").asDouble()).isEqualTo(1.0);
      assertThat(primary.path("requests_per_minute").asDouble()).isEqualTo(1.0);
      assertThat(primary.path("p95_ms").asLong()).isPositive();
      assertThat(health.path("targets").has("emu/claude-b")).isTrue();
      assertThat(health.path("targets").path("emu/claude-b").path("success_rate").isNull())
          .as("a target without calls in the last minute has no success rate, not 1.0").isTrue();
      assertThat(h.emulator.log()).hasSize(calls);
    }
  }

  @Test
  void metricsCountRequestsUpstreamCallsAndCircuitsInPrometheusForm() throws Exception {
    try (Harness h = Harness.start("models:\n  smart:\n    chain: [emu/emu-529, emu/claude-b]\n" + Harness.BASE_POLICY)) {
      h.sdk.messages().create(Harness.params("smart", "metrics"));
      // the request is counted just after its answer went out, on the server's thread: the SDK can
      // hold the answer first (a scrape at once missed the count on a loaded box)
      String counted = "levee_requests_total{endpoint=\"messages\",outcome=\"ok\",tier=\"T0\"} 1.0";
      h.awaitMetrics(counted);

      HttpResponse<String> metrics = h.get("/metrics");

      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.headers().firstValue("content-type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
      assertThat(metrics.body())
          .contains(counted)
          .contains("levee_upstream_calls_total{outcome=\"overloaded\",target=\"emu/emu-529\"} 3.0")
          .contains("levee_upstream_calls_total{outcome=\"success\",target=\"emu/claude-b\"} 1.0")
          .contains("levee_circuit_state{target=\"emu/emu-529\"} 0.0")
          .contains("levee_retry_budget_tokens");
    }
  }

  @Test
  void theBreakerOpensAfterItsFailuresRejectsWithoutCallingAndClosesThroughTrials() throws Exception {
    ManualClock clock = new ManualClock(); // breaker and emulator incident both on virtual time: nothing waits
    EmulatorOptions options = VirtualTime.emulator(clock)
        .scenario(Scenario.builder().phase(Scenario.Phase.builder().model("flaky").to(Duration.ofSeconds(60))
            .status(503).build()).build())
        .build();
    String config = """
        models:
          flaky:
            chain: [emu/flaky]
        policy:
          retry: { max-retries: 0 }
          breaker: { failures: 3, window: 30s, open-for: 400ms, close-after: 2 }
        """;
    GatewayClock virtual = VirtualTime.gateway(clock, 2);
    try (Harness h = Harness.start(options, config, "", virtual)) {
      CircuitBreaker breaker = h.gateway.chain().breakers().of(new Target("emu", "flaky"));
      for (int i = 0; i < 3; i++) {
        assertThatThrownBy(() -> h.sdk.messages().create(Harness.params("flaky", "breaker"))).isNotNull();
      }
      assertThat(breaker.state()).isEqualTo(CircuitState.OPEN);

      HttpResponse<String> rejected = h.post("/v1/messages",
          "{\"model\":\"flaky\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", JSON);
      assertThat(rejected.statusCode()).isEqualTo(503);
      assertThat(rejected.headers().firstValue("retry-after")).hasValue("1");
      assertThat(rejected.headers().firstValue("x-should-retry")).hasValue("false");
      assertThat(h.emulator.log()).hasSize(3); // no call while open

      clock.advance(Duration.ofSeconds(61)); // the incident is over, and so is the open period
      h.sdk.messages().create(Harness.params("flaky", "trial one"));
      assertThat(breaker.state()).isEqualTo(CircuitState.HALF_OPEN);
      h.sdk.messages().create(Harness.params("flaky", "trial two"));
      assertThat(breaker.state()).isEqualTo(CircuitState.CLOSED);
      assertThat(Json.tryParse(h.get("/health").body()).path("targets").path("emu/flaky").path("circuit").asText())
          .isEqualTo("CLOSED");
    }
  }

  @Test
  void aClientThatGoesAwayCancelsTheUpstreamCallWithoutPenalty() throws Exception {
    String config = "models:\n  hanging:\n    chain: [emu/emu-hang]\n" + Harness.BASE_POLICY;
    try (Harness h = Harness.start(config);
        HttpClient leaving = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      CompletableFuture<HttpResponse<String>> answer = leaving.sendAsync(HttpRequest.newBuilder(
          URI.create(h.gateway.baseUrl() + "/v1/messages")).header("content-type", "application/json")
          .header("x-api-key", "sk-test-client-key").header("anthropic-version", "2023-06-01")
          .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"hanging\",\"max_tokens\":16,\"messages\":"
              + "[{\"role\":\"user\",\"content\":\"leaving early\"}]}")).build(), HttpResponse.BodyHandlers.ofString());
      // the client leaves once its call is upstream: an SDK timeout of 400 ms could fire before the
      // gateway had called the upstream on a loaded box, and then no call was there to cancel
      h.awaitLog(log -> log.size() == 1);
      leaving.shutdownNow();
      assertThat(answer).failsWithin(Duration.ofSeconds(20));

      h.awaitLog(log -> log.size() == 1 && log.get(0).clientGoneEarly());
      CircuitBreaker.Snapshot circuit = h.gateway.chain().breakers().of(new Target("emu", "emu-hang")).snapshot();
      assertThat(circuit.recentFailures()).isZero();
      assertThat(h.emulator.log()).extracting(LogEntry::model).containsExactly("emu-hang");
    }
  }

  /** Regression: five requests with a bad key opened every circuit and shut out every other client. */
  @Test
  void aClientsBadKeyIsItsOwnErrorAndOpensNoCircuit() throws Exception {
    try (Harness h = Harness.start("models:\n  smart:\n    chain: [emu/claude-a, emu/claude-b]\n" + Harness.BASE_POLICY)) {
      AnthropicClient intruder = com.anthropic.client.okhttp.AnthropicOkHttpClient.builder()
          .baseUrl(h.gateway.baseUrl().toString()).apiKey("invalid-key").maxRetries(0).build();
      for (int i = 0; i < 7; i++) {
        assertThatThrownBy(() -> intruder.messages().create(Harness.params("smart", "let me in")))
            .isInstanceOf(com.anthropic.errors.UnauthorizedException.class);
      }
      intruder.close();

      Message answered = h.sdk.messages().create(Harness.params("smart", "a real user"));

      assertThat(answered.model().asString()).isEqualTo("claude-a");
      assertThat(h.attempts("claude-b")).isEmpty(); // a bad key is not failed over
      assertThat(h.gateway.chain().breakers().of(new Target("emu", "claude-a")).state()).isEqualTo(CircuitState.CLOSED);
    }
  }

  @Test
  void healthIsUnhealthyWith503WhenEveryCircuitIsOpen() throws Exception {
    String config = """
        models:
          down:
            chain: [emu/emu-503]
        policy:
          retry: { max-retries: 0 }
          breaker: { failures: 1, open-for: 60s }
        """;
    try (Harness h = Harness.start(config)) {
      assertThatThrownBy(() -> h.sdk.messages().create(Harness.params("down", "x"))).isNotNull();

      HttpResponse<String> health = h.get("/health");
      assertThat(health.statusCode()).isEqualTo(503);
      assertThat(Json.tryParse(health.body()).path("status").asText()).isEqualTo("unhealthy");
    }
  }

}
