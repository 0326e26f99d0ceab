package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.errors.PermissionDeniedException;
import com.anthropic.models.messages.batches.BatchCreateParams;
import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Regression (tester, one long-lived gateway): on a gateway without {@code queue.secret} whose
 * upstream has no {@code api-key} of its own, {@code POST /v1/messages/batches} answered 500
 * {@code api_error} and was counted as {@code levee_requests_total{endpoint="batches",
 * outcome="error"}}: a configuration refusal inflated the 5xx and error counts operators alert on,
 * and the SDKs retry a 5xx (only {@code x-should-retry: false} held them back). It is now a 403
 * {@code permission_error} saying the gateway does not offer Message Batches for the model until
 * {@code queue.secret} is set, counted as refused; no other batches path answers a 5xx either.
 */
class BatchesWithoutSecretRefusedNotErrorRegressionTest {

  private static final String KEY = "sk-ant-test-tenant";
  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY;
  private static final String BATCH = "{\"requests\":[{\"custom_id\":\"a\",\"params\":{\"model\":\"chat\","
      + "\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}]}";

  @Test
  void aBatchTheGatewayCannotKeepIsANonRetryableRefusalAndNoBatchesPathIsAnError() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      HttpResponse<String> created = send(h, "POST", "/v1/messages/batches", BATCH);

      assertThat(created.statusCode()).as(created.body()).isEqualTo(403);
      assertThat(created.headers().firstValue("x-should-retry")).contains("false");
      JsonNode body = Json.tryParse(created.body());
      assertThat(body.path("type").asText()).isEqualTo("error");
      assertThat(body.path("error").path("type").asText()).isEqualTo("permission_error");
      assertThat(body.path("error").path("message").asText()).contains("does not offer Message Batches")
          .contains("'chat'").contains("queue.secret").contains("head -c 32 /dev/urandom | base64")
          .contains("Nothing was stored").doesNotContain(KEY);
      assertThatThrownBy(() -> h.sdk.messages().batches().create(BatchCreateParams.builder()
          .addRequest(BatchCreateParams.Request.builder().customId("b").params(BatchCreateParams.Request.Params
              .builder().model("chat").maxTokens(10).addUserMessage("hi").build()).build()).build()))
          .as("what an SDK raises, and does not retry").isInstanceOf(PermissionDeniedException.class);

      HttpResponse<String> list = send(h, "GET", "/v1/messages/batches", null);
      assertThat(list.statusCode()).isEqualTo(200);
      assertThat(list.body()).as("nothing stored").contains("\"data\":[]");
      assertThat(send(h, "GET", "/v1/messages/batches/msgbatch_none", null).statusCode()).isEqualTo(404);
      assertThat(send(h, "GET", "/v1/messages/batches/msgbatch_none/results", null).statusCode()).isEqualTo(404);
      assertThat(send(h, "POST", "/v1/messages/batches/msgbatch_none/cancel", "").statusCode()).isEqualTo(404);
      assertThat(send(h, "DELETE", "/v1/messages/batches/msgbatch_none", null).statusCode()).isEqualTo(404);

      String refused = "levee_requests_total{endpoint=\"batches\",outcome=\"refused\",tier=\"-\"} 6.0";
      String listed = "levee_requests_total{endpoint=\"batches\",outcome=\"ok\",tier=\"-\"} 1.0";
      String metrics = h.awaitMetrics(refused, listed);
      assertThat(metrics).as("two creations and four look-ups refused, the list answered").contains(refused)
          .contains(listed);
      assertThat(metrics).as("no error counted").doesNotContain("outcome=\"error\"")
          .doesNotContain("status_class=\"5xx\"");
    }
  }

  private static HttpResponse<String> send(Harness h, String method, String path, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + path))
        .timeout(Duration.ofSeconds(20))
        .header("x-api-key", KEY)
        .header(Harness.VERSION, Harness.DEFAULT_VERSION)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("content-type", "application/json");
    }
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
