package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.models.beta.models.BetaModelInfo;
import com.anthropic.models.beta.messages.batches.BetaMessageBatch;
import com.anthropic.models.messages.batches.BatchCreateParams;
import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): the batches and models lists read their paging parameters as they
 * came, whatever came. {@code GET /v1/messages/batches?limit=1&limit=2} listed one batch and
 * {@code ?limit=2&limit=1} two (Jetty keeps the first value); {@code /v1/models} kept the last;
 * {@code ?after_id=&limit=2} answered 200 with an empty list, an empty cursor read as one naming
 * no batch ("you have none"); both cursors were read as one of them. A repeated or empty {@code
 * limit}, {@code after_id} or {@code before_id}, and both cursors, are now refused 400 {@code
 * invalid_request_error} ({@code refusal=bad_parameter}), by both lists, before any upstream call.
 * Any other parameter is still ignored — the official SDKs add {@code beta=true} to the beta
 * endpoints' calls ({@code client.beta().messages().batches().list()}), and the Anthropic API
 * ignores parameters it does not know — and the SDKs' beta lists still work. Driven through a real
 * gateway in front of the emulator, on loopback.
 */
class BatchesAndModelsListQueryRegressionTest {

  private static final String SECRET = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
  private static final String CONFIG = Harness.BASE_POLICY + """
      models:
        chat: { chain: [emu/emu-ok] }
        fast: { chain: [emu/emu-ok] }
      queue:
        folder: ${QUEUE}
        secret: %s
        poll: 50ms
      """.formatted(SECRET);
  private static final String KEY = "sk-test-client-key";

  /** Each refused query and the start of its message. */
  private static final Map<String, String> AMBIGUOUS = ambiguous();

  private static Map<String, String> ambiguous() {
    Map<String, String> refused = new LinkedHashMap<>();
    refused.put("?limit=1&limit=2", "limit: given 2 times; give it once");
    refused.put("?limit=2&limit=1", "limit: given 2 times; give it once");
    refused.put("?limit=", "limit: empty");
    refused.put("?after_id=&limit=2", "after_id: empty; give a value, or leave the parameter out");
    refused.put("?before_id", "before_id: empty");
    refused.put("?after_id=chat&after_id=fast", "after_id: given 2 times");
    refused.put("?before_id=chat&beta=true&before_id=chat", "before_id: given 2 times");
    refused.put("?after_id=chat&before_id=fast", "before_id: give after_id");
    return refused;
  }

  @Test
  void theBatchesListRefusesARepeatedOrEmptyPagingParameterAndIgnoresOthers() throws Exception {
    try (Harness h = Harness.start(CONFIG); AccessLines access = new AccessLines()) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        ids.add(h.sdk.messages().batches().create(BatchCreateParams.builder().addRequest(BatchCreateParams.Request
            .builder().customId("a").params(BatchCreateParams.Request.Params.builder().model("chat").maxTokens(16)
                .addUserMessage("hi " + i).build()).build()).build()).id());
      }

      List<String> refusedIds = new ArrayList<>();
      for (var refused : AMBIGUOUS.entrySet()) {
        refusedIds.add(assertRefused(h, "/v1/messages/batches" + refused.getKey(), refused.getValue()));
      }

      JsonNode beta = page(h, "/v1/messages/batches?beta=true&limit=1");
      assertThat(beta.path("data").findValuesAsText("id")).as("beta=true changes nothing").containsExactly(ids.get(1));
      assertThat(beta.path("has_more").asBoolean()).isTrue();
      assertThat(page(h, "/v1/messages/batches?foo=1").path("data").findValuesAsText("id"))
          .as("an unknown parameter changes nothing").containsExactly(ids.get(1), ids.get(0));
      assertThat(page(h, "/v1/messages/batches?after_id=" + ids.get(1) + "&beta=true").path("data")
          .findValuesAsText("id")).containsExactly(ids.get(0));
      assertThat(h.sdk.beta().messages().batches().list().data()).extracting(BetaMessageBatch::id)
          .as("the SDK's beta list (?beta=true)").containsExactly(ids.get(1), ids.get(0));
      List<String> lines = access.await(refusedIds);
      refusedIds.forEach(id -> assertThat(lines).anySatisfy(line -> assertThat(line).contains(" - " + id + " ")
          .endsWith("outcome=refused invalid_request_error refusal=bad_parameter")));
    }
  }

  @Test
  void theModelsListRefusesARepeatedOrEmptyPagingParameterAndIgnoresOthers() throws Exception {
    try (Harness h = Harness.start(CONFIG); AccessLines access = new AccessLines()) {
      List<String> refusedIds = new ArrayList<>();
      for (var refused : AMBIGUOUS.entrySet()) {
        refusedIds.add(assertRefused(h, "/v1/models" + refused.getKey(), refused.getValue()));
      }
      assertThat(h.emulator.log()).as("refused before any upstream call")
          .noneMatch(e -> "/v1/models".equals(e.path()));

      assertThat(page(h, "/v1/models?beta=true&limit=3").path("data").findValuesAsText("id"))
          .containsExactly("chat", "fast", "claude-opus-4-6");
      assertThat(page(h, "/v1/models?after_id=chat&limit=1&bogus=1").path("data").findValuesAsText("id"))
          .containsExactly("fast");
      assertThat(h.sdk.beta().models().list().data()).extracting(BetaModelInfo::id)
          .as("the SDK's beta list (?beta=true)").startsWith("chat", "fast", "claude-opus-4-6");
      List<String> lines = access.await(refusedIds);
      refusedIds.forEach(id -> assertThat(lines).anySatisfy(line -> assertThat(line).contains(" - " + id + " ")
          .endsWith("outcome=refused invalid_request_error refusal=bad_parameter")));
    }
  }

  /** Asserts {@code path} is answered 400 {@code invalid_request_error} with a message starting {@code message}; returns its id. */
  private static String assertRefused(Harness h, String path, String message) throws Exception {
    HttpResponse<String> answer = h.getWith(path, KEY);
    assertThat(answer.statusCode()).as(path + ": " + answer.body()).isEqualTo(400);
    JsonNode error = Json.tryParse(answer.body()).path("error");
    assertThat(error.path("type").asText()).as(path).isEqualTo("invalid_request_error");
    assertThat(error.path("message").asText()).as(path).startsWith(message);
    return answer.headers().firstValue("x-levee-request-id").orElseThrow();
  }

  private static JsonNode page(Harness h, String path) throws Exception {
    HttpResponse<String> answer = h.getWith(path, KEY);
    assertThat(answer.statusCode()).as(path + ": " + answer.body()).isEqualTo(200);
    return Json.tryParse(answer.body());
  }
}
