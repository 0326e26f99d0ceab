package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (newcomer trial): a batch sent without an API key to a gateway whose upstream has no
 * {@code api-key} of its own was stored (200), and each of its requests later ended {@code errored}
 * with the upstream's 401; with an empty {@code x-api-key} and no {@code queue.secret} it got a 500
 * {@code api_error} asking the operator for a secret. {@code /v1/messages} answers the same request
 * at once with the API's 401 {@code authentication_error} "x-api-key header is required". Batch
 * creation now answers that 401 itself, before anything is stored, and counts it as a refusal. An
 * alias whose upstream holds its own key still takes a batch without one; the other batch calls
 * without a key answer as before (the anonymous partition), never a 500.
 */
class BatchWithoutKeyRegressionTest {

  /**
   * A second upstream, {@code owned}, that holds its own key: the Harness opens {@code upstreams:}
   * with {@code emu}, which has none.
   */
  private static final String CONFIG = """
        owned:
          url: ${EMU}
          api-key: sk-gateway-own
      models:
        chat:
          chain: [emu/emu-ok]
        owned:
          chain: [owned/emu-ok]
      """ + Harness.BASE_POLICY;

  /** The four refused creations, counted as refusals of the batches endpoint. */
  private static final String REFUSED = "levee_requests_total{endpoint=\"batches\",outcome=\"refused\",tier=\"-\"} 4.0";

  private static final String MESSAGE =
      "{\"model\":\"chat\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  @ParameterizedTest(name = "queue.secret set: {0}")
  @ValueSource(booleans = {false, true})
  void aBatchWithoutAKeyIsRefusedAsTheMessagesPathRefusesItAndNothingIsStored(boolean secret) throws Exception {
    try (Harness h = Harness.start(CONFIG + queue(secret))) {
      JsonNode messages = Json.tryParse(h.post("/v1/messages", MESSAGE, Map.of()).body()).path("error");
      assertThat(messages.path("type").asText()).as("the upstream's own answer").isEqualTo("authentication_error");

      List<Map<String, String>> keyless = List.of(Map.of(), Map.of("x-api-key", ""), Map.of("authorization", "Bearer "));
      for (Map<String, String> headers : keyless) {
        HttpResponse<String> r = h.post("/v1/messages/batches", batch("chat"), headers);

        assertThat(r.statusCode()).as("%s: %s", headers.keySet(), r.body()).isEqualTo(401);
        JsonNode body = Json.tryParse(r.body());
        assertThat(body.path("type").asText()).isEqualTo("error");
        assertThat(body.path("error")).as("the words of /v1/messages").isEqualTo(messages);
        assertThat(r.headers().firstValue("request-id")).contains(body.path("request_id").asText());
      }
      HttpResponse<String> mixed = h.post("/v1/messages/batches", batch("owned", "chat"), Map.of());
      assertThat(mixed.statusCode()).as("refused whole: %s", mixed.body()).isEqualTo(401);

      assertThat(h.get("/v1/messages/batches").body()).as("nothing stored").contains("\"data\":[]");
      assertThat(h.awaitMetrics(REFUSED)).contains(REFUSED);
      assertThat(h.emulator.log()).as("only the /v1/messages call reached the upstream").hasSize(1);
    }
  }

  @ParameterizedTest(name = "queue.secret set: {0}")
  @ValueSource(booleans = {false, true})
  void anAliasWhoseUpstreamHoldsItsOwnKeyStillTakesABatchWithoutOne(boolean secret) throws Exception {
    try (Harness h = Harness.start(CONFIG + queue(secret))) {
      HttpResponse<String> created = h.post("/v1/messages/batches", batch("owned"), Map.of());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
      String id = Json.tryParse(created.body()).path("id").asText();

      assertThat(h.get("/v1/messages/batches").body()).contains(id);
      assertThat(h.get("/v1/messages/batches/" + id).statusCode()).isEqualTo(200);
      assertThat(h.get("/v1/messages/batches/msgbatch_none").statusCode()).isEqualTo(404);
      assertThat(h.get("/v1/messages/batches/msgbatch_none/results").statusCode()).isEqualTo(404);
      assertThat(h.post("/v1/messages/batches/msgbatch_none/cancel", "", Map.of()).statusCode()).isEqualTo(404);
    }
  }

  private static String queue(boolean secret) {
    return "queue:\n  folder: ${QUEUE}\n"
        + (secret ? "  secret: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n" : "");
  }

  /** A batch of one request per model, {@code custom_id} r0, r1, …. */
  private static String batch(String... models) {
    StringJoiner requests = new StringJoiner(",", "{\"requests\":[", "]}");
    for (int i = 0; i < models.length; i++) {
      requests.add("{\"custom_id\":\"r" + i + "\",\"params\":{\"model\":\"" + models[i] + "\",\"max_tokens\":10,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}");
    }
    return requests.toString();
  }
}
