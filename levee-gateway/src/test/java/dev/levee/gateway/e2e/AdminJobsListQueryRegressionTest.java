package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.emulator.EmulatorOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12 review): {@code GET /admin/jobs} ignored {@code before_id}, so its
 * Anthropic-shaped list ({@code first_id}, {@code has_more}) could only be paged one way; it ignored
 * parameters it does not know ({@code ?page=2} listed the first page) and an empty filter ({@code
 * ?feature=} listed every feature's jobs) while {@code ?state=bogus} got a 400; and its {@code limit}
 * error was worded unlike the gateway's other list endpoints. Now {@code before_id} pages back,
 * and every parameter it does not take, an empty value, a repeated one, or {@code after_id} with
 * {@code before_id} gets a 400 {@code invalid_request_error} naming the parameter.
 */
class AdminJobsListQueryRegressionTest {

  private static final String TOKEN = "ops-token";
  private Harness harness;

  @BeforeEach
  void start() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), """
        policy:
          deadline: 60s
          attempt-timeout: 30s
          retry: { max-retries: 0 }
        models:
          stuck: { chain: [emu/emu-503] }
        features:
          reports: { fail-mode: closed, on-outage: queue }
        admin:
          token: %s
        queue:
          folder: ${QUEUE}
          secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
          poll: 20ms
          retry-delay: 1h
          pacing: { enabled: false }
        """.formatted(TOKEN));
    harness.gateway.work().workers().hold(true); // what the outage queues stays queued
  }

  @AfterEach
  void stop() throws Exception {
    harness.close();
  }

  @Test
  void beforeIdPagesBackTowardsTheNewestJobs() throws Exception {
    List<String> oldestFirst = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      oldestFirst.add(queue("j" + i));
    }
    List<String> newestFirst = oldestFirst.reversed();
    JsonNode first = admin("/admin/jobs?limit=2");
    JsonNode second = admin("/admin/jobs?limit=2&after_id=" + first.get("last_id").asText());

    JsonNode back = admin("/admin/jobs?limit=2&before_id=" + second.get("first_id").asText());
    JsonNode nearest = admin("/admin/jobs?limit=1&before_id=" + second.get("last_id").asText());

    assertThat(second.findValuesAsText("id")).containsExactlyElementsOf(newestFirst.subList(2, 4));
    assertThat(back.findValuesAsText("id")).as("the page before the second is the first")
        .containsExactlyElementsOf(newestFirst.subList(0, 2));
    assertThat(back.get("has_more").asBoolean()).as("nothing newer").isFalse();
    assertThat(nearest.findValuesAsText("id")).as("the job right before, newest first")
        .containsExactly(newestFirst.get(2));
    assertThat(nearest.get("has_more").asBoolean()).as("two newer ones left").isTrue();
    assertThat(nearest.get("first_id").asText()).isEqualTo(newestFirst.get(2));
  }

  @Test
  void unknownEmptyRepeatedOrClashingParametersGetA400NamingThem() throws Exception {
    String job = queue("x");
    Map<String, String> cases = new java.util.LinkedHashMap<>();
    cases.put("/admin/jobs?page=2", "page");
    cases.put("/admin/jobs?state=queued&sort=asc", "sort");
    cases.put("/admin/jobs?feature=", "feature");
    cases.put("/admin/jobs?alias=", "alias");
    cases.put("/admin/jobs?tenant", "tenant");
    cases.put("/admin/jobs?limit=1&limit=2", "limit");
    cases.put("/admin/jobs?after_id=" + job + "&before_id=" + job, "before_id");
    cases.put("/admin/jobs?before_id=nope", "before_id");
    for (Map.Entry<String, String> c : cases.entrySet()) {
      HttpResponse<String> response = send(c.getKey());
      JsonNode error = Json.tryParse(response.body());

      assertThat(response.statusCode()).as(c.getKey() + ": " + response.body()).isEqualTo(400);
      assertThat(error.at("/error/type").asText()).as(c.getKey()).isEqualTo("invalid_request_error");
      assertThat(error.at("/error/message").asText()).as(c.getKey()).startsWith(c.getValue() + ":");
    }
    assertThat(send("/admin/jobs?before_id=job_00000000000000000000000000").statusCode()).as("no such job").isEqualTo(404);
  }

  @Test
  void theLimitErrorIsWordedAsTheOtherListEndpoints() throws Exception {
    HttpResponse<String> jobs = send("/admin/jobs?limit=0");
    HttpResponse<String> batches = harness.getWith("/v1/messages/batches?limit=0", "sk-a");

    assertThat(Json.tryParse(jobs.body()).at("/error/message").asText())
        .isEqualTo("limit: must be an integer from 1 to 1000, was '0'");
    assertThat(Json.tryParse(batches.body()).at("/error/message").asText())
        .isEqualTo("limit: must be an integer from 1 to 1000, was '0'");
  }

  private String queue(String prompt) throws Exception {
    HttpResponse<String> answer = harness.post("/v1/messages", "{\"model\":\"stuck\",\"max_tokens\":8,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}",
        Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01", "x-levee-feature", "reports"));
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(503);
    return answer.headers().firstValue("x-levee-job").orElseThrow();
  }

  private JsonNode admin(String path) throws Exception {
    HttpResponse<String> response = send(path);
    assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
    return Json.tryParse(response.body());
  }

  private HttpResponse<String> send(String path) throws Exception {
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(HttpRequest.newBuilder(URI.create(harness.gateway.baseUrl() + path))
          .header("authorization", "Bearer " + TOKEN).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
