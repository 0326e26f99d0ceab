package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12 review): an admin endpoint asked with the wrong method ({@code POST
 * /admin/tiers}, {@code GET /admin/jobs/{id}/cancel}) answered 404 "no admin endpoint", as if the
 * path did not exist, where {@code /v1/messages}, {@code /health} and the jobs API answer 405 with
 * {@code Allow} (RFC 9110 §15.5.6). Every admin path now does too, in the Anthropic error shape; a
 * path that exists under no method still gets 404.
 */
class AdminWrongMethodRegressionTest {

  private static final String JOB = "job_00000000000000000000000000";
  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big]\nadmin:\n  token: drill-token\n"
      + Harness.BASE_POLICY;

  @Test
  void aWrongMethodOnAnAdminPathGets405WithAllow() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      Map<String, String> cases = new LinkedHashMap<>();
      cases.put("POST /admin/tiers", "GET");
      cases.put("GET /admin/tiers/default", "POST");
      cases.put("DELETE /admin/route?alias=chat", "GET");
      cases.put("POST /admin/jobs", "GET");
      cases.put("DELETE /admin/jobs/" + JOB, "GET");
      cases.put("GET /admin/jobs/" + JOB + "/cancel", "POST");
      for (Map.Entry<String, String> c : cases.entrySet()) {
        String[] call = c.getKey().split(" ");
        HttpResponse<String> response = send(h, call[0], call[1]);
        JsonNode body = Json.tryParse(response.body());

        assertThat(response.statusCode()).as(c.getKey() + ": " + response.body()).isEqualTo(405);
        assertThat(response.headers().allValues("allow")).as(c.getKey()).containsExactly(c.getValue());
        assertThat(body.at("/error/type").asText()).as(c.getKey()).isEqualTo("invalid_request_error");
        assertThat(body.at("/error/message").asText()).as(c.getKey()).contains(call[0] + " is not allowed on ");
        assertThat(body.path("request_id").asText()).as(c.getKey()).startsWith("lv_");
      }
      assertThat(send(h, "GET", "/admin/nothing").statusCode()).as("no such path").isEqualTo(404);
      assertThat(send(h, "GET", "/admin/jobs/" + JOB + "/elsewhere").statusCode()).as("no such path").isEqualTo(404);
    }
  }

  private static HttpResponse<String> send(Harness h, String method, String path) throws Exception {
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + path))
          .header("authorization", "Bearer drill-token")
          .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
