package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.NotFoundException;
import com.anthropic.models.messages.batches.BatchCreateParams;
import com.anthropic.models.messages.batches.MessageBatch;
import com.anthropic.models.messages.batches.MessageBatchIndividualResponse;
import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.jobs.QueueConfig;
import dev.levee.gateway.jobs.TestStores;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Message Batches API through the gateway, in front of the emulator, driven by the official
 * Java SDK's batch client and by raw HTTP for what the SDK refuses to send.
 */
class BatchesEndToEndTest {

  private static final String SECRET = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

  private Harness harness;

  @AfterEach
  void stop() throws Exception {
    if (harness != null) {
      harness.close();
    }
  }

  private static String yaml() throws Exception {
    return Harness.BASE_POLICY + """
        models:
          smart:
            chain: [emu/emu-529, emu/emu-ok]
          down:
            chain: [emu/emu-503]
        queue:
          folder: ${QUEUE}
          secret: %s
          workers: 8
          poll: 50ms
          retry-delay: 1h
        """.formatted(SECRET);
  }

  @Test
  void onPostgresqlTheBatchClientGetsEveryResultToo() throws Exception {
    QueueConfig pg = TestStores.postgres();
    try {
      harness = Harness.start(EmulatorOptions.defaults(), Harness.BASE_POLICY + """
          models:
            smart:
              chain: [emu/emu-529, emu/emu-ok]
          queue:
            store: "%s"
            schema: %s
            secret: %s
            poll: 50ms
          """.formatted(pg.store(), pg.schema(), SECRET), "");
      BatchCreateParams.Builder params = BatchCreateParams.builder();
      IntStream.range(0, 20).forEach(i -> params.addRequest(request("pg-" + i, "smart", "question " + i)));

      MessageBatch created = harness.sdk.messages().batches().create(params.build());
      MessageBatch ended = awaitEnded(harness.sdk, created.id());

      assertThat(ended.requestCounts().succeeded()).isEqualTo(20);
      List<MessageBatchIndividualResponse> results = new ArrayList<>();
      try (StreamResponse<MessageBatchIndividualResponse> stream =
          harness.sdk.messages().batches().resultsStreaming(created.id())) {
        stream.stream().forEach(results::add);
      }
      assertThat(results).extracting(MessageBatchIndividualResponse::customId)
          .containsExactlyElementsOf(IntStream.range(0, 20).mapToObj(i -> "pg-" + i).toList());
    } finally {
      if (harness != null) {
        harness.close();
        harness = null;
      }
      TestStores.drop(pg);
    }
  }

  private static BatchCreateParams.Request request(String customId, String model, String prompt) {
    return BatchCreateParams.Request.builder().customId(customId)
        .params(BatchCreateParams.Request.Params.builder().model(model).maxTokens(64).addUserMessage(prompt).build())
        .build();
  }

  private static MessageBatch awaitEnded(AnthropicClient sdk, String id) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    MessageBatch batch = sdk.messages().batches().retrieve(id);
    while (batch.processingStatus() != MessageBatch.ProcessingStatus.ENDED && System.nanoTime() < until) {
      Thread.sleep(50); // polling a real server, as a client would
      batch = sdk.messages().batches().retrieve(id);
    }
    assertThat(batch.processingStatus()).isEqualTo(MessageBatch.ProcessingStatus.ENDED);
    return batch;
  }

  @Test
  void theSdkBatchClientGetsFiftySucceededResultsThroughTheFallbackChain() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), yaml(), "");
    BatchCreateParams.Builder params = BatchCreateParams.builder();
    IntStream.range(0, 50).forEach(i -> params.addRequest(request("req-" + i, "smart", "question " + i)));

    MessageBatch created = harness.sdk.messages().batches().create(params.build());

    assertThat(created.id()).startsWith("msgbatch_");
    assertThat(created.requestCounts().processing()).isEqualTo(50);
    MessageBatch ended = awaitEnded(harness.sdk, created.id());
    assertThat(ended.requestCounts().succeeded()).isEqualTo(50);
    assertThat(ended.resultsUrl()).hasValueSatisfying(url -> assertThat(url).endsWith("/results"));
    List<MessageBatchIndividualResponse> results = new ArrayList<>();
    try (StreamResponse<MessageBatchIndividualResponse> stream =
        harness.sdk.messages().batches().resultsStreaming(created.id())) {
      stream.stream().forEach(results::add);
    }
    assertThat(results).extracting(MessageBatchIndividualResponse::customId)
        .containsExactlyElementsOf(IntStream.range(0, 50).mapToObj(i -> "req-" + i).toList());
    assertThat(results).allSatisfy(r -> assertThat(r.result().isSucceeded()).isTrue());
    assertThat(harness.attempts("emu-ok")).hasSize(50); // each answered once, by the fallback
    assertThat(Harness.text(results.get(7).result().asSucceeded().message()))
        .isEqualTo(harness.expectedText("question 7"));
  }

  @Test
  void anotherKeySeesNoBatch() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), yaml(), "");
    MessageBatch created = harness.sdk.messages().batches()
        .create(BatchCreateParams.builder().addRequest(request("only", "emu-ok", "hi")).build());

    HttpResponse<String> other = send("GET", "/v1/messages/batches/" + created.id(), null, "sk-other-key");
    HttpResponse<String> otherCancel = send("POST", "/v1/messages/batches/" + created.id() + "/cancel", "", "sk-other-key");
    HttpResponse<String> otherList = send("GET", "/v1/messages/batches", null, "sk-other-key");

    assertThat(other.statusCode()).isEqualTo(404);
    assertThat(Json.tryParse(other.body()).at("/error/type").asText()).isEqualTo("not_found_error");
    assertThat(otherCancel.statusCode()).isEqualTo(404);
    assertThat(Json.tryParse(otherList.body()).get("data")).isEmpty();
    assertThat(harness.sdk.messages().batches().retrieve(created.id()).id()).isEqualTo(created.id());
  }

  @Test
  void malformedBatchesAreRefusedWholeAndNothingIsStored() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), yaml(), "");
    String good = "{\"custom_id\":\"a\",\"params\":{\"model\":\"emu-ok\",\"max_tokens\":5,\"messages\":[]}}";
    Map<String, String> bad = Map.of(
        "{}", "requests: Field required",
        "{\"requests\":[]}", "at least 1 item",
        "{\"requests\":[" + good + "," + good + "]}", "Duplicate custom_id 'a'",
        "{\"requests\":[" + good + ",{\"custom_id\":\"b\",\"params\":{\"model\":\"emu-ok\",\"messages\":[]}}]}",
        "requests.1.params.max_tokens: Field required",
        "{\"requests\":[{\"custom_id\":\"no spaces\",\"params\":{}}]}", "requests.0.custom_id",
        "{\"requests\":[{\"custom_id\":\"c\",\"params\":{\"max_tokens\":5,\"messages\":[]}}]}", "model: Field required",
        "not json", "not valid JSON");

    for (Map.Entry<String, String> body : bad.entrySet()) {
      HttpResponse<String> response = send("POST", "/v1/messages/batches", body.getKey(), "sk-test-client-key");
      JsonNode error = Json.tryParse(response.body());
      assertThat(response.statusCode()).as(body.getKey()).isEqualTo(400);
      assertThat(error.at("/error/type").asText()).isEqualTo("invalid_request_error");
      assertThat(error.at("/error/message").asText()).as(body.getKey()).contains(body.getValue());
    }
    HttpResponse<String> unknown = send("GET", "/v1/messages/batches/msgbatch_nope", null, "sk-test-client-key");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThatThrownBy(() -> harness.sdk.messages().batches().retrieve("msgbatch_nope"))
        .isInstanceOf(NotFoundException.class);
    assertThat(Json.tryParse(send("GET", "/v1/messages/batches", null, "sk-test-client-key").body()).get("data"))
        .isEmpty();
  }

  @Test
  void aBatchOverTheApisRequestLimitIs413AndNothingIsStored() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), yaml(), "");
    StringBuilder body = new StringBuilder("{\"requests\":[");
    for (int i = 0; i <= 100_000; i++) {
      body.append(i == 0 ? "" : ",").append("{\"custom_id\":\"r").append(i).append("\",\"params\":{}}");
    }

    HttpResponse<String> response = send("POST", "/v1/messages/batches", body.append("]}").toString(),
        "sk-test-client-key");

    assertThat(response.statusCode()).isEqualTo(413);
    assertThat(Json.tryParse(response.body()).at("/error/type").asText()).isEqualTo("request_too_large");
    assertThat(Json.tryParse(send("GET", "/v1/messages/batches", null, "sk-test-client-key").body()).get("data"))
        .isEmpty();
  }

  @Test
  void aCancelledBatchEndsWithCanceledResultsAndCanThenBeDeleted() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), yaml(), "");
    BatchCreateParams.Builder params = BatchCreateParams.builder();
    IntStream.range(0, 5).forEach(i -> params.addRequest(request("down-" + i, "down", "q" + i)));
    MessageBatch created = harness.sdk.messages().batches().create(params.build());

    HttpResponse<String> early = send("GET", "/v1/messages/batches/" + created.id() + "/results", null,
        "sk-test-client-key");
    HttpResponse<String> earlyDelete = send("DELETE", "/v1/messages/batches/" + created.id(), null,
        "sk-test-client-key");
    MessageBatch cancelling = harness.sdk.messages().batches().cancel(created.id());
    MessageBatch ended = awaitEnded(harness.sdk, created.id());

    assertThat(early.statusCode()).isEqualTo(400);
    assertThat(earlyDelete.statusCode()).isEqualTo(400);
    assertThat(cancelling.cancelInitiatedAt()).isPresent();
    assertThat(ended.requestCounts().canceled()).isEqualTo(5);
    List<MessageBatchIndividualResponse> results = new ArrayList<>();
    try (StreamResponse<MessageBatchIndividualResponse> stream =
        harness.sdk.messages().batches().resultsStreaming(created.id())) {
      stream.stream().forEach(results::add);
    }
    assertThat(results).hasSize(5).allSatisfy(r -> assertThat(r.result().isCanceled()).isTrue());
    assertThat(harness.sdk.messages().batches().delete(created.id()).id()).isEqualTo(created.id());
    assertThat(send("GET", "/v1/messages/batches/" + created.id(), null, "sk-test-client-key").statusCode())
        .isEqualTo(404);
  }

  @Test
  void aBatchCreatedTwiceWithOneIdempotencyKeyIsStoredOnce() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), yaml(), "");
    String body = "{\"requests\":[{\"custom_id\":\"a\",\"params\":{\"model\":\"emu-ok\",\"max_tokens\":5,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}]}";
    Map<String, String> headers = Map.of("x-api-key", "sk-test-client-key", "idempotency-key", "nightly-2026-01-01");

    HttpResponse<String> first = harness.post("/v1/messages/batches", body, headers);
    HttpResponse<String> again = harness.post("/v1/messages/batches", body, headers);
    HttpResponse<String> changed = harness.post("/v1/messages/batches", body.replace("hi", "ho"), headers);

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(Json.tryParse(again.body()).get("id")).isEqualTo(Json.tryParse(first.body()).get("id"));
    assertThat(again.headers().firstValue("idempotent-replayed")).hasValue("true");
    assertThat(changed.statusCode()).isEqualTo(422);
    assertThat(Json.tryParse(send("GET", "/v1/messages/batches", null, "sk-test-client-key").body()).get("data"))
        .hasSize(1);
  }

  @Test
  void batchesAreListedNewestFirstInPages() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), yaml(), "");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(harness.sdk.messages().batches()
          .create(BatchCreateParams.builder().addRequest(request("x", "emu-ok", "hi " + i)).build()).id());
    }

    JsonNode page = Json.tryParse(send("GET", "/v1/messages/batches?limit=2", null, "sk-test-client-key").body());
    JsonNode next = Json.tryParse(send("GET", "/v1/messages/batches?limit=2&after_id=" + page.get("last_id").asText(),
        null, "sk-test-client-key").body());

    assertThat(page.get("has_more").asBoolean()).isTrue();
    assertThat(page.get("data").findValuesAsText("id")).containsExactly(ids.get(2), ids.get(1));
    assertThat(next.get("has_more").asBoolean()).isFalse();
    assertThat(next.get("data").findValuesAsText("id")).containsExactly(ids.get(0));
  }

  /**
   * Regression (session 13): a {@code before_id} page with more batches beyond it showed the page
   * one too far from the cursor: the store turned its nearest-first rows newest first with the
   * extra row (the farthest) in front, and the handler cut the last one, the batch next to the cursor.
   */
  @Test
  void aBeforeIdPageHoldsTheBatchesNextToTheCursor() throws Exception {
    harness = Harness.start(EmulatorOptions.defaults(), yaml(), "");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ids.add(harness.sdk.messages().batches()
          .create(BatchCreateParams.builder().addRequest(request("x", "emu-ok", "hi " + i)).build()).id());
    }

    JsonNode page = Json.tryParse(send("GET", "/v1/messages/batches?limit=2&before_id=" + ids.get(0), null,
        "sk-test-client-key").body());

    assertThat(page.get("data").findValuesAsText("id")).as("newest first, next to the cursor")
        .containsExactly(ids.get(2), ids.get(1));
    assertThat(page.get("has_more").asBoolean()).as("one more beyond them").isTrue();
  }

  private HttpResponse<String> send(String method, String path, String body, String key) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(harness.gateway.baseUrl() + path))
        .timeout(Duration.ofSeconds(20))
        .header("x-api-key", key)
        .header("anthropic-version", "2023-06-01")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("content-type", "application/json"); // as the SDKs send it; batches refuse a body of another type
    }
    try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
