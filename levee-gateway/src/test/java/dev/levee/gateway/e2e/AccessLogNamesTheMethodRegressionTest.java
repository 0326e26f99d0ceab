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
 * Newcomer trial: the access log had no HTTP method, so a GET, a DELETE and a POST …/cancel on a
 * batch read alike, and a 405's line did not say which method was refused. Every line now names
 * its method right after the request id ({@code lv_… PUT /v1/messages status=405 …}).
 */
class AccessLogNamesTheMethodRegressionTest {

  private static final String SECRET = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
  private static final String CONFIG = Harness.BASE_POLICY + """
      models:
        chat:
          chain: [emu/claude-big]
      queue:
        folder: ${QUEUE}
        secret: %s
      """.formatted(SECRET);
  private static final String BODY =
      "{\"model\":\"chat\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  @Test
  void everyAccessLineNamesItsMethodAfterTheId() throws Exception {
    try (Harness h = Harness.start(CONFIG); AccessLines access = new AccessLines()) {
      Map<String, String> expected = new LinkedHashMap<>(); // request id -> what its line starts with
      HttpResponse<String> post = send(h, "POST", "/v1/messages", BODY);
      assertThat(post.statusCode()).as(post.body()).isEqualTo(200);
      expected.put(id(post), "POST /v1/messages model=chat ");
      HttpResponse<String> list = send(h, "GET", "/v1/messages/batches", null);
      assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
      expected.put(id(list), "GET /v1/messages/batches status=200 ");
      HttpResponse<String> delete = send(h, "DELETE", "/v1/messages/batches/msgbatch_none", null);
      expected.put(id(delete), "DELETE /v1/messages/batches/msgbatch_none status=" + delete.statusCode() + " ");
      HttpResponse<String> put = send(h, "PUT", "/v1/messages", BODY);
      assertThat(put.statusCode()).as(put.body()).isEqualTo(405);
      expected.put(id(put), "PUT /v1/messages status=405 ");

      // each line is written just after its answer went out: wait for every one, not for the last alone
      List<String> lines = access.await(expected.keySet());
      expected.forEach((id, start) -> assertThat(lines).as(id)
          .anySatisfy(line -> assertThat(line).contains(" - " + id + " " + start)));
    }
  }

  /**
   * Newcomer trial (session 23): a batch's or a job's 404 was logged {@code outcome=refused 404},
   * where every other refusal names its error type ({@code refused not_found_error}).
   */
  @Test
  void aBatchRefusalNamesItsErrorTypeAsOtherRefusalsDo() throws Exception {
    try (Harness h = Harness.start(CONFIG); AccessLines access = new AccessLines()) {
      HttpResponse<String> missing = send(h, "GET", "/v1/messages/batches/msgbatch_none", null);
      assertThat(missing.statusCode()).as(missing.body()).isEqualTo(404);

      assertThat(access.await(List.of(id(missing)))).anySatisfy(line -> assertThat(line)
          .contains(" - " + id(missing) + " GET ").contains("status=404").contains("outcome=refused not_found_error"));
    }
  }

  private static String id(HttpResponse<String> response) {
    return response.headers().firstValue("x-levee-request-id").orElseThrow();
  }

  private static HttpResponse<String> send(Harness h, String method, String path, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + path))
        .timeout(Duration.ofSeconds(20))
        .header("x-api-key", "sk-test-client-key")
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
