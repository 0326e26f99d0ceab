package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): {@code GET /v1/levee/jobs/}, a path that names no job, answered 404
 * {@code No job with id ''} with {@code refusal=not_found}, as if a job had been looked for; the
 * jobs endpoint answered a path with more segments after the id ({@code /v1/levee/jobs/job_…/result})
 * the same way. Both are now the answer any path Levee does not serve gets: 404 {@code
 * not_found_error} "Levee does not serve GET …", {@code refusal=unknown_path}, whatever the method
 * (a {@code DELETE} of it was 405). A job id that names no job is still {@code not_found}. Through a
 * real gateway in front of the emulator, on loopback.
 */
class JobsHandlerPathWithoutAJobRegressionTest {

  private static final String NO_JOB = "job_" + "0".repeat(26);

  @Test
  void aJobsPathWithoutAJobIdIsAnUnknownPath() throws Exception {
    try (Harness h = Harness.start("models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY);
        AccessLines access = new AccessLines()) {
      Map<String, String> expected = new LinkedHashMap<>(); // request id -> the end of its access line
      expected.put(unknownPath(h, "GET", "/v1/levee/jobs/"), "outcome=refused not_found_error refusal=unknown_path");
      expected.put(unknownPath(h, "DELETE", "/v1/levee/jobs/"), "outcome=refused not_found_error refusal=unknown_path");
      expected.put(unknownPath(h, "GET", "/v1/levee/jobs/" + NO_JOB + "/result"),
          "outcome=refused not_found_error refusal=unknown_path");
      HttpResponse<String> noSuchJob = send(h, "GET", "/v1/levee/jobs/" + NO_JOB);
      assertThat(noSuchJob.statusCode()).isEqualTo(404);
      assertThat(Json.tryParse(noSuchJob.body()).path("error").path("message").asText())
          .isEqualTo("No job with id '" + NO_JOB + "'");
      expected.put(noSuchJob.headers().firstValue("x-levee-request-id").orElseThrow(),
          "outcome=refused not_found_error refusal=not_found");

      List<String> lines = access.await(expected.keySet());
      expected.forEach((id, end) -> assertThat(lines).as(id)
          .anySatisfy(line -> assertThat(line).contains(" - " + id + " ").endsWith(end)));
    }
  }

  /** Sends {@code method path}, asserts the unknown-path answer, and returns the request's id. */
  private static String unknownPath(Harness h, String method, String path) throws Exception {
    HttpResponse<String> answer = send(h, method, path);
    assertThat(answer.statusCode()).as(method + " " + path + ": " + answer.body()).isEqualTo(404);
    JsonNode error = Json.tryParse(answer.body()).path("error");
    assertThat(error.path("type").asText()).isEqualTo("not_found_error");
    assertThat(error.path("message").asText()).isEqualTo("Levee does not serve " + method + " " + path);
    return answer.headers().firstValue("x-levee-request-id").orElseThrow();
  }

  private static HttpResponse<String> send(Harness h, String method, String path) throws Exception {
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + path)).header("x-api-key", "sk-ant-test")
          .header(Harness.VERSION, Harness.DEFAULT_VERSION).method(method, HttpRequest.BodyPublishers.noBody()).build(),
          HttpResponse.BodyHandlers.ofString());
    }
  }
}
