package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.jobs.Database;
import dev.levee.gateway.jobs.QueueConfig;
import dev.levee.gateway.jobs.TestStores;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The operator's job API on one gateway, on each store: given requests an outage queued for two
 * tenants, when an operator lists jobs (filtered, paged) and cancels one queued and one running,
 * then the listing pages through every job once, a cancelled job's client poll says {@code
 * cancelled} and why, a second cancel changes nothing, the running try stops and is logged as
 * {@code cancelled}, and every bad input gets an Anthropic-shaped 400, an unknown id a 404.
 */
class AdminJobsEndToEndTest {

  private static final String TOKEN = "ops-token";
  private Harness harness;
  private QueueConfig postgres;

  @AfterEach
  void stop() throws Exception {
    if (harness != null) {
      harness.close();
    }
    if (postgres != null) {
      TestStores.drop(postgres);
    }
  }

  private Harness start(Database.Dialect dialect) throws Exception {
    return start(dialect, "60s");
  }

  private Harness start(Database.Dialect dialect, String lease) throws Exception {
    String store;
    if (dialect == Database.Dialect.POSTGRESQL) {
      postgres = TestStores.postgres();
      store = "store: \"" + postgres.store() + "\"\n  schema: " + postgres.schema();
    } else {
      store = "folder: ${QUEUE}";
    }
    return Harness.start(EmulatorOptions.defaults(), """
        policy:
          deadline: 60s
          attempt-timeout: 30s
          retry: { max-retries: 0 }
        models:
          stuck: { chain: [emu/emu-503] }
          slow: { chain: [emu/emu-hang-always] }
        features:
          reports: { fail-mode: closed, on-outage: queue }
        admin:
          token: %s
        queue:
          %s
          secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
          poll: 20ms
          retry-delay: 1h
          lease: %s
          pacing: { enabled: false }
        """.formatted(TOKEN, store, lease));
  }

  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void anOperatorListsAndCancelsQueuedAndRunningJobs(Database.Dialect dialect) throws Exception {
    harness = start(dialect);
    harness.gateway.work().workers().hold(true); // what the outage queues stays queued
    List<String> aJobs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      aJobs.add(queue("sk-a", "stuck", "a" + i));
    }
    String bJob = queue("sk-b", "stuck", "b");

    JsonNode all = admin("GET", "/admin/jobs");
    assertThat(all.findValuesAsText("id")).containsExactly(bJob, aJobs.get(2), aJobs.get(1), aJobs.get(0));
    assertThat(all.get("has_more").asBoolean()).isFalse();
    JsonNode newest = all.get("data").get(0);
    assertThat(newest.get("state").asText()).isEqualTo("queued");
    assertThat(newest.get("alias").asText()).isEqualTo("stuck");
    assertThat(newest.get("feature").asText()).isEqualTo("reports");
    assertThat(newest.get("waiting_reason").asText()).isNotEmpty();
    assertThat(newest.has("result")).as("a listing carries no bodies").isFalse();
    String tenantB = newest.get("tenant").asText();
    assertThat(tenantB).doesNotContain("sk-b");

    JsonNode page1 = admin("GET", "/admin/jobs?limit=3");
    JsonNode page2 = admin("GET", "/admin/jobs?limit=3&after_id=" + page1.get("last_id").asText());
    assertThat(page1.get("has_more").asBoolean()).isTrue();
    assertThat(page1.get("first_id").asText()).isEqualTo(bJob);
    assertThat(page2.findValuesAsText("id")).containsExactly(aJobs.get(0));
    assertThat(page2.get("has_more").asBoolean()).isFalse();
    assertThat(admin("GET", "/admin/jobs?tenant=" + tenantB).findValuesAsText("id")).containsExactly(bJob);
    assertThat(admin("GET", "/admin/jobs?state=running,succeeded&alias=stuck").get("data")).isEmpty();

    JsonNode cancelled = admin("POST", "/admin/jobs/" + aJobs.get(1) + "/cancel");
    JsonNode again = admin("POST", "/admin/jobs/" + aJobs.get(1) + "/cancel");
    JsonNode polled = Json.tryParse(harness.getWith("/v1/levee/jobs/" + aJobs.get(1), "sk-a").body());

    assertThat(cancelled.get("state").asText()).isEqualTo("cancelled");
    assertThat(again).as("cancelling twice changes nothing").isEqualTo(cancelled);
    assertThat(polled.get("state").asText()).as("the client's poll").isEqualTo("cancelled");
    assertThat(polled.get("last_error").asText()).startsWith("cancelled by an operator at ");
    assertThat(polled.get("result").isNull()).isTrue();
    assertThat(admin("GET", "/admin/jobs?state=cancelled").findValuesAsText("id")).containsExactly(aJobs.get(1));
    assertThat(admin("GET", "/admin/jobs?state=queued").findValuesAsText("id"))
        .containsExactly(bJob, aJobs.get(2), aJobs.get(0));

    // a running job: its try hangs upstream until the cancel stops it
    for (String id : List.of(bJob, aJobs.get(2), aJobs.get(0))) {
      admin("POST", "/admin/jobs/" + id + "/cancel");
    }
    HttpResponse<String> batch = harness.post("/v1/messages/batches", """
        {"requests":[{"custom_id":"a","params":{"model":"slow","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}}]}""",
        Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01"));
    assertThat(batch.statusCode()).as(batch.body()).isEqualTo(200);
    harness.gateway.work().workers().hold(false);
    harness.awaitLog(log -> log.stream().anyMatch(call -> "emu-hang-always".equals(call.model())));
    String running = admin("GET", "/admin/jobs?state=running").findValuesAsText("id").getFirst();

    JsonNode stopped = admin("POST", "/admin/jobs/" + running + "/cancel");

    assertThat(stopped.get("state").asText()).isEqualTo("cancelled");
    assertThat(stopped.get("last_error").asText()).contains("the try was stopped");
    assertThat(harness.awaitMetrics("endpoint=\"queued\",outcome=\"cancelled\"")).as("the stopped try, by what happened to it")
        .contains("levee_requests_total{endpoint=\"queued\",outcome=\"cancelled\",tier=\"T0\"} 1.0")
        .doesNotContain("outcome=\"lease_lost\"");
    assertThat(admin("GET", "/admin/jobs/" + running).get("state").asText()).as("nothing revived it")
        .isEqualTo("cancelled");
  }

  /**
   * A cancel through another gateway sharing the store (here: straight in the store, so this
   * gateway's pool is not told) stops the run at its next lease renewal, named {@code cancelled}.
   */
  @ParameterizedTest
  @EnumSource(Database.Dialect.class)
  void aRunCancelledThroughAnotherGatewayStopsAtItsNextRenewal(Database.Dialect dialect) throws Exception {
    harness = start(dialect, "1s"); // renewed every 333 ms
    HttpResponse<String> batch = harness.post("/v1/messages/batches", """
        {"requests":[{"custom_id":"a","params":{"model":"slow","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}}]}""",
        Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01"));
    assertThat(batch.statusCode()).as(batch.body()).isEqualTo(200);
    harness.awaitLog(log -> log.stream().anyMatch(call -> "emu-hang-always".equals(call.model())));
    String running = admin("GET", "/admin/jobs?state=running").findValuesAsText("id").getFirst();

    assertThat(harness.gateway.work().jobs().cancel(running, java.time.Instant.now()).kind())
        .isEqualTo(dev.levee.gateway.jobs.JobStore.Cancel.Kind.CANCELLED);

    assertThat(harness.awaitMetrics("endpoint=\"queued\",outcome=\"cancelled\"")).as("stopped by the renewal, by what happened to it")
        .contains("levee_requests_total{endpoint=\"queued\",outcome=\"cancelled\",tier=\"T0\"} 1.0")
        .doesNotContain("outcome=\"lease_lost\"");
    assertThat(admin("GET", "/admin/jobs/" + running).get("state").asText()).isEqualTo("cancelled");
  }

  @ParameterizedTest
  @EnumSource(value = Database.Dialect.class, names = "SQLITE")
  void badInputGetsAnAnthropicShaped400AndAnUnknownIdA404(Database.Dialect dialect) throws Exception {
    harness = start(dialect);
    String unknown = "job_00000000000000000000000000";
    Map<String, Integer> cases = new java.util.LinkedHashMap<>();
    cases.put("GET /admin/jobs?state=bogus", 400);
    cases.put("GET /admin/jobs?state=queued,", 400);
    cases.put("GET /admin/jobs?limit=0", 400);
    cases.put("GET /admin/jobs?limit=1001", 400);
    cases.put("GET /admin/jobs?limit=ten", 400);
    cases.put("GET /admin/jobs?after_id=nope", 400);
    cases.put("GET /admin/jobs/nope", 400);
    cases.put("POST /admin/jobs/nope/cancel", 400);
    cases.put("GET /admin/jobs?after_id=" + unknown, 404);
    cases.put("GET /admin/jobs/" + unknown, 404);
    cases.put("POST /admin/jobs/" + unknown + "/cancel", 404);
    for (Map.Entry<String, Integer> c : cases.entrySet()) {
      String[] call = c.getKey().split(" ");
      HttpResponse<String> response = send(call[0], call[1], TOKEN);
      JsonNode error = Json.tryParse(response.body());

      assertThat(response.statusCode()).as(c.getKey()).isEqualTo(c.getValue());
      assertThat(error.get("type").asText()).as(c.getKey()).isEqualTo("error");
      assertThat(error.at("/error/type").asText()).as(c.getKey())
          .isEqualTo(c.getValue() == 400 ? "invalid_request_error" : "not_found_error");
      assertThat(error.at("/error/message").asText()).as(c.getKey()).isNotEmpty();
    }
    assertThat(send("GET", "/admin/jobs", "wrong").statusCode()).isEqualTo(401);
  }

  /** Queues one request of {@code tenant} for {@code alias} (its target fails): returns the job's id. */
  private String queue(String key, String alias, String prompt) throws Exception {
    HttpResponse<String> answer = harness.post("/v1/messages", "{\"model\":\"" + alias
        + "\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}",
        Map.of("x-api-key", key, "anthropic-version", "2023-06-01", "x-levee-feature", "reports"));
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(503);
    return answer.headers().firstValue("x-levee-job").orElseThrow();
  }

  private JsonNode admin(String method, String path) throws Exception {
    HttpResponse<String> response = send(method, path, TOKEN);
    assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isEqualTo(200);
    return Json.tryParse(response.body());
  }

  private HttpResponse<String> send(String method, String path, String token) throws Exception {
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(HttpRequest.newBuilder(URI.create(harness.gateway.baseUrl() + path))
          .header("authorization", "Bearer " + token)
          .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
