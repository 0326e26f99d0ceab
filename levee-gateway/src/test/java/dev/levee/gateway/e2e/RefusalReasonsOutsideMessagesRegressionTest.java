package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression: the jobs, batches, admin and models endpoints logged every refusal {@code
 * refusal=other}, and {@code levee_refusals_total} counted it so, whatever the cause — a job id no
 * job has, a batch that is not JSON, a bad admin token, a {@code limit} out of range: their
 * dispatcher ({@code HttpDispatcher.recorded}) saw only the status its handler sent, not the
 * error. Each line now ends with its refusal's own code, never its message (which may quote the
 * client's input); an idempotency key's answer given again is {@code replayed}, and the upstream's
 * own 404 relayed by {@code /v1/models/{id}} {@code rejected}, as on the Messages path: neither is
 * Levee's refusal. Driven through a real gateway in front of the emulator, on loopback.
 */
class RefusalReasonsOutsideMessagesRegressionTest {

  private static final String TOKEN = "drill-token";
  /** No {@code queue.secret}: a batch for {@code chat}, whose upstream has no key of its own, is refused 403. */
  private static final String CONFIG = Harness.BASE_POLICY + """
      models:
        chat:
          chain: [emu/claude-big]
      admin:
        token: %s
      """.formatted(TOKEN);
  /** A token a refusal's message quotes back to the client: it must not reach the log. */
  private static final String SECRET_TOKEN = "zq7SecretUserText4711";
  private static final String NO_JOB = "job_" + "0".repeat(26);
  private static final String BATCH = "{\"requests\":[{\"custom_id\":\"a\",\"params\":{\"model\":\"chat\","
      + "\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}]}";

  @Test
  void eachRefusalOfTheJobsBatchesAdminAndModelsEndpointsNamesItsReason() throws Exception {
    try (Harness h = Harness.start(CONFIG); AccessLines access = new AccessLines()) {
      Map<String, String> admin = Map.of("authorization", "Bearer " + TOKEN);
      Map<String, String> expected = new LinkedHashMap<>(); // request id -> the end of its line
      // the jobs endpoint
      expected.put(refusedId(h, "GET", "/v1/levee/jobs/" + NO_JOB, null, api()),
          "refused not_found_error refusal=not_found");
      expected.put(refusedId(h, "DELETE", "/v1/levee/jobs/" + NO_JOB, null, api()),
          "refused invalid_request_error refusal=method_not_allowed");
      // the Message Batches API
      expected.put(refusedId(h, "POST", "/v1/messages/batches", "{\"requests\":" + SECRET_TOKEN + "}", api()),
          "refused invalid_request_error refusal=body_not_json");
      expected.put(refusedId(h, "POST", "/v1/messages/batches", "[1]", api()),
          "refused invalid_request_error refusal=body_not_object");
      expected.put(refusedId(h, "POST", "/v1/messages/batches", "{\"requests\":[]}", api()),
          "refused invalid_request_error refusal=bad_field");
      expected.put(refusedId(h, "POST", "/v1/messages/batches",
          BATCH.replace("\"model\":\"chat\"", "\"model\":\"no such model\""), api()),
          "refused invalid_request_error refusal=bad_model");
      expected.put(refusedId(h, "POST", "/v1/messages/batches", BATCH, with(api(), "x-levee-priority", "12")),
          "refused invalid_request_error refusal=bad_priority");
      Map<String, String> keyless = new LinkedHashMap<>(api());
      keyless.remove("x-api-key");
      expected.put(refusedId(h, "POST", "/v1/messages/batches", BATCH, keyless),
          "refused authentication_error refusal=missing_api_key");
      expected.put(refusedId(h, "POST", "/v1/messages/batches", BATCH, api()),
          "refused permission_error refusal=queue_secret_unset");
      expected.put(refusedId(h, "GET", "/v1/messages/batches?limit=0", null, api()),
          "refused invalid_request_error refusal=bad_parameter");
      expected.put(refusedId(h, "GET", "/v1/messages/batches/msgbatch_none", null, api()),
          "refused not_found_error refusal=not_found");
      expected.put(refusedId(h, "PUT", "/v1/messages/batches", null, api()),
          "refused invalid_request_error refusal=method_not_allowed");
      expected.put(refusedId(h, "GET", "/v1/messages/batches/msgbatch_none/results/more", null, api()),
          "refused not_found_error refusal=unknown_path");
      // the admin endpoints
      expected.put(refusedId(h, "GET", "/admin/tiers", null, Map.of("authorization", "Bearer not-the-token")),
          "refused authentication_error refusal=bad_admin_token");
      expected.put(refusedId(h, "GET", "/admin/nowhere", null, admin),
          "refused not_found_error refusal=unknown_path");
      expected.put(refusedId(h, "PUT", "/admin/tiers", null, admin),
          "refused invalid_request_error refusal=method_not_allowed");
      expected.put(refusedId(h, "POST", "/admin/tiers/no-such-feature", "{\"tier\":\"T2\"}", admin),
          "refused not_found_error refusal=not_found");
      expected.put(refusedId(h, "POST", "/admin/tiers/default", "{\"tier\":" + SECRET_TOKEN + "}", admin),
          "refused invalid_request_error refusal=body_not_json");
      expected.put(refusedId(h, "POST", "/admin/tiers/default", "{\"tier\":\"T9\"}", admin),
          "refused invalid_request_error refusal=bad_field");
      expected.put(refusedId(h, "GET", "/admin/jobs?state=" + SECRET_TOKEN, null, admin),
          "refused invalid_request_error refusal=bad_parameter");
      expected.put(refusedId(h, "GET", "/admin/jobs/" + NO_JOB, null, admin),
          "refused not_found_error refusal=not_found");
      expected.put(refusedId(h, "POST", "/admin/jobs/" + NO_JOB + "/cancel", null, admin),
          "refused not_found_error refusal=not_found");
      // the models endpoint
      expected.put(refusedId(h, "GET", "/v1/models?limit=0", null, api()),
          "refused invalid_request_error refusal=bad_parameter");

      List<String> lines = access.await(expected.keySet());
      expected.forEach((id, end) -> assertThat(lines).as(id)
          .anySatisfy(line -> assertThat(line).contains(" - " + id + " ").endsWith("outcome=" + end)));
      assertThat(String.join("\n", access.lines())).as("no message reaches the log").doesNotContain(SECRET_TOKEN);
      List<String> counted = List.of(
          "levee_refusals_total{endpoint=\"jobs\",reason=\"not_found\"} 1.0",
          "levee_refusals_total{endpoint=\"batches\",reason=\"body_not_json\"} 1.0",
          "levee_refusals_total{endpoint=\"batches\",reason=\"queue_secret_unset\"} 1.0",
          "levee_refusals_total{endpoint=\"other\",reason=\"bad_admin_token\"} 1.0",
          "levee_refusals_total{endpoint=\"other\",reason=\"not_found\"} 3.0",
          "levee_refusals_total{endpoint=\"other\",reason=\"bad_parameter\"} 2.0");
      String metrics = h.awaitMetrics(counted.toArray(String[]::new));
      assertThat(metrics).contains(counted);
      assertThat(metrics).as("no refusal without its code").doesNotContain("reason=\"other\"");
    }
  }

  /**
   * Neither is Levee's refusal: a batch's idempotency key that gives its first answer (a 400) again
   * is {@code replayed}; the upstream's 404 for a model it does not know, relayed, is {@code
   * rejected} — with no {@code refusal=}, and not in {@code levee_refusals_total}.
   */
  @Test
  void aReplayAndARelayedRejectionAreNoRefusals() throws Exception {
    try (Harness h = Harness.start(CONFIG); AccessLines access = new AccessLines()) {
      Map<String, String> keyed = with(api(), "idempotency-key", "batch-1");
      String first = refusedId(h, "POST", "/v1/messages/batches", "{\"requests\":[]}", keyed);
      String again = refusedId(h, "POST", "/v1/messages/batches", "{\"requests\":[]}", keyed);
      String unknownModel = refusedId(h, "GET", "/v1/models/claude-no-such-model", null, api());

      List<String> lines = access.await(List.of(first, again, unknownModel));
      assertThat(lines).anySatisfy(line -> assertThat(line).contains(" - " + first + " ")
          .endsWith("outcome=refused invalid_request_error refusal=bad_field"));
      assertThat(lines).anySatisfy(line -> assertThat(line).contains(" - " + again + " ").contains("status=400")
          .endsWith("outcome=replayed"));
      assertThat(lines).anySatisfy(line -> assertThat(line).contains(" - " + unknownModel + " ").contains("status=404")
          .containsPattern("outcome=rejected not_found_error upstream_id=req_\\w+$")); // the upstream's id, relayed
      String counted = "levee_refusals_total{endpoint=\"batches\",reason=\"bad_field\"} 1.0";
      String metrics = h.awaitMetrics(counted);
      assertThat(metrics).contains(counted);
      assertThat(metrics).doesNotContain("levee_refusals_total{endpoint=\"other\"");
    }
  }

  /** Without {@code admin.token} the admin endpoints answer 404, which says why. */
  @Test
  void anAdminPathWhileAdminIsOffSaysSo() throws Exception {
    try (Harness h = Harness.start(Harness.BASE_POLICY + "models:\n  chat:\n    chain: [emu/claude-big]\n");
        AccessLines access = new AccessLines()) {
      String id = refusedId(h, "GET", "/admin/tiers", null, Map.of("authorization", "Bearer " + TOKEN));

      assertThat(access.await(List.of(id))).anySatisfy(line -> assertThat(line).contains(" - " + id + " ")
          .endsWith("outcome=refused not_found_error refusal=admin_disabled"));
    }
  }

  /** The headers of an API call: a version, a key, JSON. */
  private static Map<String, String> api() {
    return Map.of(Harness.VERSION, Harness.DEFAULT_VERSION, "x-api-key", "sk-test-client-key",
        "content-type", "application/json");
  }

  private static Map<String, String> with(Map<String, String> headers, String name, String value) {
    Map<String, String> out = new LinkedHashMap<>(headers);
    out.put(name, value);
    return out;
  }

  /** Sends a request that must be refused (4xx), and returns its id. */
  private static String refusedId(Harness h, String method, String path, String body, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + path))
        .timeout(Duration.ofSeconds(20))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(request::header);
    HttpResponse<String> response;
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
    assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isBetween(400, 499);
    return response.headers().firstValue("x-levee-request-id").orElseThrow();
  }
}
