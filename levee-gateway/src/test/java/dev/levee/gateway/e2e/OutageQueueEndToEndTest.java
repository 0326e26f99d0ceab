package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.levee.anthropic.Json;
import dev.levee.emulator.EmulatorOptions;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Outage queueing: a request of a feature in {@code queue.on-outage} that every target failed is
 * kept as a job, the client learns its id at once, and the job's answer is there once the target
 * answers again.
 */
class OutageQueueEndToEndTest {

  private Harness harness;
  private Runnable closeReceiver = () -> { };

  @AfterEach
  void stop() throws Exception {
    if (harness != null) {
      harness.close();
    }
    closeReceiver.run();
  }

  private static String body(String prompt) {
    return "{\"model\":\"flaky\",\"max_tokens\":32,\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}";
  }

  @Test
  void aFailedRequestOfAQueueingFeatureBecomesAJobWhoseAnswerArrivesLater() throws Exception {
    List<String> received = new CopyOnWriteArrayList<>();
    List<String> signatures = new CopyOnWriteArrayList<>();
    AtomicInteger refusals = new AtomicInteger(1); // the receiver fails once: the answer is posted again
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext("/hook", exchange -> {
      byte[] posted = exchange.getRequestBody().readAllBytes();
      int status = refusals.getAndDecrement() > 0 ? 500 : 204;
      if (status == 204) {
        received.add(new String(posted, StandardCharsets.UTF_8));
        signatures.add(exchange.getRequestHeaders().getFirst("x-levee-timestamp") + " "
            + exchange.getRequestHeaders().getFirst("x-levee-signature"));
      }
      exchange.sendResponseHeaders(status, -1);
      exchange.close();
    });
    receiver.start();
    closeReceiver = () -> receiver.stop(0);
    harness = Harness.start(EmulatorOptions.defaults(), """
        policy:
          retry: { max-retries: 0 }
        models:
          flaky: { chain: [emu/emu-500-once] }   # the first call of each conversation fails
        features:
          reports: { fail-mode: closed }
          chat: { fail-mode: open }
        queue:
          folder: ${QUEUE}
          secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
          on-outage: [reports, chat]
          poll: 50ms
          retry-delay: 50ms
          callbacks: { reports: "http://127.0.0.1:%d/hook" }
          callback-secret: hook-secret
        """.formatted(receiver.getAddress().getPort()));
    Map<String, String> reports = Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01",
        "x-levee-feature", "reports");

    HttpResponse<String> queued = harness.post("/v1/messages", body("quarterly numbers"), reports);
    HttpResponse<String> notQueued = harness.post("/v1/messages", body("other feature"),
        Map.of("x-api-key", "sk-a", "anthropic-version", "2023-06-01"));

    assertThat(queued.statusCode()).isEqualTo(503);
    String job = Json.tryParse(queued.body()).at("/error/job_id").asText();
    assertThat(job).startsWith("job_");
    assertThat(queued.headers().firstValue("x-levee-job")).hasValue(job);
    assertThat(notQueued.statusCode()).isEqualTo(500);
    assertThat(Json.tryParse(notQueued.body()).at("/error/job_id").isMissingNode()).isTrue();

    JsonNode done = awaitEnded(job, "sk-a");
    assertThat(done.get("state").asText()).isEqualTo("succeeded");
    assertThat(done.at("/result/status").asInt()).isEqualTo(200);
    assertThat(done.at("/result/body/type").asText()).isEqualTo("message");
    assertThat(get("/v1/levee/jobs/" + job, "sk-b").statusCode()).as("another tenant").isEqualTo(404);
    assertThat(get("/v1/levee/jobs/job_unknown", "sk-a").statusCode()).isEqualTo(404);
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!"delivered".equals(Json.tryParse(get("/v1/levee/jobs/" + job, "sk-a").body()).path("callback_state").asText())
        && System.nanoTime() < until) {
      Thread.sleep(50); // the second try waits 1 s after the refusal
    }
    assertThat(received).hasSize(1);
    assertThat(Json.tryParse(received.getFirst()).get("id").asText()).isEqualTo(job);
    assertThat(Json.tryParse(received.getFirst()).at("/result/status").asInt()).isEqualTo(200);
    String[] signed = signatures.getFirst().split(" ");
    javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
    mac.init(new javax.crypto.spec.SecretKeySpec("hook-secret".getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    mac.update((signed[0] + ".").getBytes(StandardCharsets.UTF_8));
    assertThat(signed[1]).isEqualTo("sha256=" + java.util.HexFormat.of().formatHex(
        mac.doFinal(received.getFirst().getBytes(StandardCharsets.UTF_8))));

    HttpResponse<String> open = harness.post("/v1/messages", body("a chat turn"), Map.of("x-api-key", "sk-a",
        "anthropic-version", "2023-06-01", "x-levee-feature", "chat"));
    assertThat(open.statusCode()).as("fail-open: a message the client can show").isEqualTo(200);
    String openJob = open.headers().firstValue("x-levee-job").orElseThrow();
    assertThat(Json.tryParse(open.body()).at("/content/0/text").asText()).contains(openJob);
    assertThat(awaitEnded(openJob, "sk-a").get("state").asText()).isEqualTo("succeeded");
  }

  private JsonNode awaitEnded(String job, String key) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    JsonNode view;
    do {
      Thread.sleep(50); // polling a real server, as a client would
      view = Json.tryParse(get("/v1/levee/jobs/" + job, key).body());
    } while (!view.get("state").asText().matches("succeeded|failed|cancelled|expired") && System.nanoTime() < until);
    return view;
  }

  private HttpResponse<String> get(String path, String key) throws Exception {
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(HttpRequest.newBuilder(URI.create(harness.gateway.baseUrl() + path)).header("x-api-key", key)
          .GET().build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
