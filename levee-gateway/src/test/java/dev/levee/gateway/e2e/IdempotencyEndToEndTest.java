package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** {@code idempotency-key} on {@code POST /v1/messages}, through the gateway in front of the emulator. */
class IdempotencyEndToEndTest {

  private static final String SLOW = "emu-slow-ttft-400"; // a JSON answer after 400 ms: time for a second request

  @AutoClose
  private Harness harness;

  private static String body(String prompt) {
    return "{\"model\":\"" + SLOW + "\",\"max_tokens\":32,\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
  }

  private static Map<String, String> headers(String key, String idempotencyKey) {
    return Map.of("x-api-key", key, "anthropic-version", "2023-06-01", "content-type", "application/json",
        "idempotency-key", idempotencyKey);
  }

  @Test
  void twoConcurrentRequestsWithOneKeyMakeOneUpstreamCallAndGetOneAnswer() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), Harness.BASE_POLICY);
    HttpResponse<String> first;
    HttpResponse<String> second;
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      CompletableFuture<HttpResponse<String>> a = CompletableFuture.supplyAsync(
          () -> post(body("hello"), headers("sk-a", "order-1")), pool);
      harness.awaitLog(log -> log.stream().anyMatch(e -> SLOW.equals(e.model()))); // the first is in flight
      CompletableFuture<HttpResponse<String>> b = CompletableFuture.supplyAsync(
          () -> post(body("hello"), headers("sk-a", "order-1")), pool);
      first = a.get();
      second = b.get();
    }

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(second.statusCode()).isEqualTo(200);
    assertThat(second.body()).isEqualTo(first.body());
    assertThat(second.headers().firstValue("idempotent-replayed")).hasValue("true");
    assertThat(harness.attempts(SLOW)).hasSize(1);
    assertThat(first.headers().firstValue("x-levee-attempts")).hasValue("1");
    assertThat(second.headers().firstValue("x-levee-attempts")).as("newcomer trial, session 22: a replay made no "
        + "upstream call, and said x-levee-attempts: 1").isEmpty();
  }

  @Test
  void theSameKeyWithAnotherBodyIs422AndAnotherTenantHasItsOwnKeys() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), Harness.BASE_POLICY);
    HttpResponse<String> first = post(body("one"), headers("sk-a", "k"));
    HttpResponse<String> other = post(body("two"), headers("sk-a", "k"));
    HttpResponse<String> otherTenant = post(body("two"), headers("sk-b", "k"));

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(other.statusCode()).isEqualTo(422);
    assertThat(other.body()).contains("invalid_request_error").contains("idempotency-key");
    assertThat(otherTenant.statusCode()).isEqualTo(200);
    assertThat(otherTenant.headers().firstValue("idempotent-replayed")).isEmpty();
    assertThat(harness.attempts(SLOW)).hasSize(2);
  }

  @Test
  void aStreamedAnswerIsReplayedWhole() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), Harness.BASE_POLICY);
    String stream = "{\"model\":\"emu-ok\",\"max_tokens\":32,\"stream\":true,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"stream me\"}]}";

    HttpResponse<String> first = post(stream, headers("sk-a", "s-1"));
    HttpResponse<String> again = post(stream, headers("sk-a", "s-1"));

    assertThat(first.headers().firstValue("content-type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
    assertThat(first.body()).contains("event: message_stop");
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(again.headers().firstValue("content-type")).isEqualTo(first.headers().firstValue("content-type"));
    assertThat(harness.attempts("emu-ok")).hasSize(1);
  }

  @Test
  void withoutTheHeaderEveryRequestRuns() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), Harness.BASE_POLICY);
    Map<String, String> plain = Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01");
    post(body("same"), plain);
    post(body("same"), plain);

    assertThat(harness.attempts(SLOW)).hasSize(2);
  }

  private HttpResponse<String> post(String body, Map<String, String> headers) {
    try {
      return harness.post("/v1/messages", body, headers);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
