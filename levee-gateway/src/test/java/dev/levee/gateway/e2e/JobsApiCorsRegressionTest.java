package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12 review): a browser page whose {@code POST /v1/messages} was queued (it
 * got {@code x-levee-job}) could not poll {@code GET /v1/levee/jobs/{id}}: the jobs API had no
 * CORS, so its preflight got 405 and its answers no {@code access-control-allow-origin}. The jobs
 * API now follows {@code server.cors} as the Messages API does (docs/gateway.md, "Browsers").
 */
class JobsApiCorsRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big]\n" + Harness.BASE_POLICY;
  private static final String ORIGIN = "https://app.example.com";
  private static final String PATH = "/v1/levee/jobs/job_00000000000000000000000000";

  @Test
  void theJobsApiAnswersAPreflightAndItsAnswersCarryTheAllowOrigin() throws Exception {
    try (Harness h = Harness.start(CONFIG);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      HttpResponse<String> preflight = http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + PATH))
          .timeout(Duration.ofSeconds(20)).method("OPTIONS", HttpRequest.BodyPublishers.noBody())
          .header("origin", ORIGIN).header("access-control-request-method", "GET")
          .header("access-control-request-headers", "x-api-key, anthropic-version").build(),
          HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> poll = http.send(HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + PATH))
          .timeout(Duration.ofSeconds(20)).header("origin", ORIGIN).header("x-api-key", "sk-ant-browser").GET().build(),
          HttpResponse.BodyHandlers.ofString());

      assertThat(preflight.statusCode()).as(preflight.body()).isEqualTo(204);
      assertThat(preflight.headers().firstValue("access-control-allow-origin")).hasValue("*");
      assertThat(preflight.headers().firstValue("access-control-allow-methods")).hasValue("GET");
      assertThat(preflight.headers().firstValue("access-control-allow-headers")).hasValue("x-api-key, anthropic-version");
      assertThat(poll.statusCode()).as("no such job: still an answer the page may read").isEqualTo(404);
      assertThat(poll.headers().firstValue("access-control-allow-origin")).hasValue("*");
      assertThat(poll.headers().firstValue("access-control-expose-headers")).hasValue("*");
    }
  }
}
