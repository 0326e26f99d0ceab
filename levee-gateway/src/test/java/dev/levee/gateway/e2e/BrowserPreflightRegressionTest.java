package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.upstream.Headers;
import dev.levee.emulator.EmulatorOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 12): {@code OPTIONS /v1/messages} got 405, so a browser
 * client (the TypeScript SDK with {@code dangerouslyAllowBrowser}, which sends {@code
 * anthropic-dangerous-direct-browser-access: true}) could not pass its CORS preflight through the
 * gateway. A preflight on the API's paths now gets 204 with the {@code access-control-allow-*}
 * headers and needs no key; an answer to a request with an {@code Origin} carries {@code
 * access-control-allow-origin}, as the Anthropic API's does ({@code server.cors}, docs/gateway.md).
 */
class BrowserPreflightRegressionTest {

  private static final String CONFIG = "models:\n  chat:\n    chain: [emu/claude-big]\n" + Harness.BASE_POLICY;
  private static final String ORIGIN = "https://app.example.com";
  private static final String ASKED = "x-api-key, anthropic-version, content-type, anthropic-dangerous-direct-browser-access, "
      + "x-stainless-os, X-Stainless-Retry-Count";
  private static final String BODY = "{\"model\":\"chat\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  private static HttpResponse<String> options(Harness h, String path, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(h.gateway.baseUrl() + path))
        .timeout(Duration.ofSeconds(20)).method("OPTIONS", HttpRequest.BodyPublishers.noBody());
    headers.forEach(request::header);
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  private static Map<String, String> preflight(String origin, String method) {
    return Map.of("origin", origin, "access-control-request-method", method, "access-control-request-headers", ASKED);
  }

  private static Map<String, String> browserPost(String origin) {
    return Map.of("origin", origin, "x-api-key", "sk-ant-browser", "anthropic-version", "2023-06-01",
        "anthropic-dangerous-direct-browser-access", "true");
  }

  @Test
  void aPreflightOnTheMessagesPathGets204WithTheAllowHeadersAndNeedsNoKey() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      HttpResponse<String> answer = options(h, "/v1/messages", preflight(ORIGIN, "POST"));

      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(204);
      assertThat(answer.headers().firstValue("access-control-allow-origin")).hasValue("*");
      assertThat(answer.headers().firstValue("access-control-allow-methods")).hasValue("POST");
      assertThat(answer.headers().firstValue("access-control-allow-headers")).hasValue(ASKED.toLowerCase());
      assertThat(answer.headers().firstValue("access-control-max-age")).hasValue("600");
      assertThat(answer.headers().firstValue("access-control-allow-credentials")).as("the key is a header").isEmpty();
      assertThat(answer.body()).isEmpty();

      HttpResponse<String> models = options(h, "/v1/models", preflight(ORIGIN, "GET"));
      assertThat(models.statusCode()).isEqualTo(204);
      assertThat(models.headers().firstValue("access-control-allow-methods")).hasValue("GET, HEAD");
      assertThat(options(h, "/v1/messages/count_tokens", preflight(ORIGIN, "POST")).statusCode()).isEqualTo(204);
      assertThat(h.emulator.log()).as("nothing went upstream").isEmpty();
      assertThat(h.get("/metrics").body()).as("a preflight is no request of the endpoint's SLO")
          .doesNotContain("levee_requests_total{endpoint=\"messages\"");
    }
  }

  @Test
  void anAnswerToABrowsersRequestCarriesAllowOriginAndOneWithoutOriginDoesNot() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      HttpResponse<String> browser = h.post("/v1/messages", BODY, browserPost(ORIGIN));
      HttpResponse<String> server = h.post("/v1/messages", BODY, Map.of("x-api-key", "k"));

      assertThat(browser.statusCode()).as(browser.body()).isEqualTo(200);
      assertThat(browser.headers().allValues("access-control-allow-origin")).containsExactly("*");
      assertThat(browser.headers().firstValue("access-control-expose-headers")).hasValue("*");
      assertThat(server.statusCode()).isEqualTo(200);
      assertThat(server.headers().firstValue("access-control-allow-origin")).isEmpty();
      HttpResponse<String> refused = h.post("/v1/messages", "{", browserPost(ORIGIN));
      assertThat(refused.statusCode()).isEqualTo(400);
      assertThat(refused.headers().firstValue("access-control-allow-origin")).as("a browser can read Levee's errors too")
          .hasValue("*");
    }
  }

  @Test
  void anOptionsThatIsNoPreflightIsStill405() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      HttpResponse<String> answer = options(h, "/v1/messages", Map.of());

      assertThat(answer.statusCode()).isEqualTo(405);
      assertThat(answer.headers().firstValue("allow")).hasValue("POST");
    }
  }

  @Test
  void listedOriginsAreEchoedAndOthersAreRefused() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), CONFIG, "cors: [\"https://APP.example.com\"]")) {
      HttpResponse<String> listed = options(h, "/v1/messages", preflight(ORIGIN, "POST"));
      HttpResponse<String> other = options(h, "/v1/messages", preflight("https://evil.example", "POST"));
      HttpResponse<String> otherPost = h.post("/v1/messages", BODY, browserPost("https://evil.example"));

      assertThat(listed.statusCode()).isEqualTo(204);
      assertThat(listed.headers().firstValue("access-control-allow-origin")).hasValue(ORIGIN);
      assertThat(String.join(",", listed.headers().allValues("vary"))).contains("origin");
      assertThat(other.statusCode()).isEqualTo(405);
      assertThat(other.headers().firstValue("access-control-allow-origin")).isEmpty();
      assertThat(otherPost.headers().firstValue("access-control-allow-origin")).isEmpty();
      assertThat(String.join(",", otherPost.headers().allValues("vary")))
          .as("review: a shared cache could serve this answer to the listed origin").contains("origin");
    }
  }

  @Test
  void corsOffAnswersNoBrowser() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), CONFIG, "cors: off")) {
      HttpResponse<String> refused = options(h, "/v1/messages", preflight(ORIGIN, "POST"));
      assertThat(refused.statusCode()).isEqualTo(405);
      assertThat(refused.body()).as("newcomer trial 2: the refusal said nothing of CORS").contains("server.cors");
      assertThat(h.post("/v1/messages", BODY, browserPost(ORIGIN)).headers().firstValue("access-control-allow-origin"))
          .isEmpty();
    }
  }

  @Test
  void theUpstreamsOwnCorsHeadersAreNotRelayed() {
    assertThat(Headers.toClient(Map.of("access-control-allow-origin", List.of("*"), "access-control-expose-headers",
        List.of("*"), "request-id", List.of("req_1")))).containsOnlyKeys("request-id");
  }
}
