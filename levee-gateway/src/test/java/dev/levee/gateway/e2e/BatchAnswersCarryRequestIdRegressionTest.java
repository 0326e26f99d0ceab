package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 17): the Message Batches API's answers, which Levee makes
 * itself, had only {@code x-levee-request-id} — not {@code request-id}, where the official SDKs
 * read an answer's id ({@code batches.list()._request_id} was None in the Python SDK). Every one
 * of them, created, listed, read, its results, cancelled, now carries Levee's id there too.
 */
class BatchAnswersCarryRequestIdRegressionTest {

  private static final String BATCH = "{\"requests\":[{\"custom_id\":\"r0\",\"params\":{\"model\":\"chat\","
      + "\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}]}";

  @Test
  void everyBatchAnswerCarriesLeveesIdWhereTheSdksLook() throws Exception {
    try (Harness h = Harness.start("models:\n  chat:\n    chain: [emu/emu-ok]\n" + Harness.BASE_POLICY
        + "queue:\n  folder: ${QUEUE}\n  secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n")) { // its upstream has no key
      Map<String, String> key = Map.of("x-api-key", "sk-ant-test");
      HttpResponse<String> created = h.post("/v1/messages/batches", BATCH, key);
      assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
      String id = Json.tryParse(created.body()).path("id").asText();

      for (HttpResponse<String> answer : List.of(created, h.getWith("/v1/messages/batches", "sk-ant-test"),
          h.getWith("/v1/messages/batches/" + id, "sk-ant-test"),
          h.post("/v1/messages/batches/" + id + "/cancel", "", key))) {
        String own = answer.headers().firstValue("x-levee-request-id").orElseThrow();
        assertThat(answer.headers().firstValue("request-id")).as(answer.uri().getPath()).contains(own);
      }
    }
  }
}
