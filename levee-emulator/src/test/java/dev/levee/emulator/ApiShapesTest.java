package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.errors.UnauthorizedException;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCountTokensParams;
import com.anthropic.models.messages.StopReason;
import com.anthropic.models.models.ModelListPage;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.sse.SseEvent;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The emulator speaks the Messages API's shapes, as the official SDK and the wire see them. */
class ApiShapesTest extends InstantEmulatorTest {

  private final AnthropicClient client = Sdk.client(emulator);

  @AfterEach
  void closeClient() {
    client.close();
  }

  @Test
  void jsonAndStreamedMessagesCarryTheSameAnswer() {
    Message json = client.messages().create(Sdk.params("claude-sonnet-4-5", "Tell me about rivers."));
    Message streamed = Sdk.streamed(client, Sdk.params("claude-sonnet-4-5", "Tell me about rivers."));

    assertThat(Sdk.text(json)).isNotBlank().isEqualTo(Sdk.text(streamed));
    assertThat(json.id()).startsWith("msg_");
    assertThat(streamed.id()).startsWith("msg_").isNotEqualTo(json.id());
    assertThat(json.model().asString()).isEqualTo("claude-sonnet-4-5");
    assertThat(json.stopReason()).contains(StopReason.END_TURN);
    assertThat(streamed.stopReason()).contains(StopReason.END_TURN);
    assertThat(json.usage().inputTokens()).isEqualTo(4);
    assertThat(json.usage().outputTokens()).isBetween(30L, 60L)
        .isEqualTo(streamed.usage().outputTokens())
        .isEqualTo(Words.count(Sdk.text(json)));
  }

  @Test
  void aStreamFollowsTheApiEventOrderAndHeaders() throws Exception {
    HttpResponse<String> response = wire.post("/v1/messages", Wire.body("emu-ok", true, "hello there"));
    List<SseEvent> events = wire.events(Wire.body("emu-ok", true, "hello there"));

    assertThat(response.headers().firstValue("content-type")).contains("text/event-stream; charset=utf-8");
    assertThat(response.headers().firstValue("request-id")).hasValueSatisfying(id -> assertThat(id).startsWith("req_"));
    assertThat(response.headers().firstValue("anthropic-ratelimit-requests-limit")).contains("4000");
    assertThat(response.headers().firstValue("anthropic-ratelimit-tokens-remaining")).isPresent();
    List<String> names = new ArrayList<>(events.stream().map(SseEvent::event).toList());
    assertThat(names.subList(0, 4)).containsExactly("message_start", "content_block_start", "ping", "content_block_delta");
    assertThat(names.subList(names.size() - 3, names.size()))
        .containsExactly("content_block_stop", "message_delta", "message_stop");
    assertThat(names.subList(3, names.size() - 3)).containsOnly("content_block_delta");
    JsonNode start = Json.tryParse(events.getFirst().data()).path("message");
    assertThat(start.path("id").asText()).startsWith("msg_");
    assertThat(start.path("model").asText()).isEqualTo("emu-ok");
    assertThat(start.path("content").isEmpty()).isTrue();
    assertThat(start.path("stop_reason").isNull()).isTrue();
    assertThat(start.path("usage").path("input_tokens").asInt()).isEqualTo(2);
    JsonNode delta = Json.tryParse(events.get(names.size() - 2).data());
    assertThat(delta.path("delta").path("stop_reason").asText()).isEqualTo("end_turn");
    assertThat(delta.path("delta").has("stop_sequence")).isTrue();
    assertThat(delta.path("usage").path("output_tokens").asInt()).isEqualTo(Words.count(Wire.streamedText(events)));
    for (SseEvent event : events.subList(3, names.size() - 3)) {
      assertThat(Words.count(Json.tryParse(event.data()).path("delta").path("text").asText())).isBetween(1, 3);
    }
  }

  @Test
  void maxTokensCutsTheAnswerShortWithStopReasonMaxTokens() throws Exception {
    ObjectNode full = Wire.body("emu-ok", false, "hello there");
    ObjectNode capped = full.deepCopy().put("max_tokens", 5);

    JsonNode answer = wire.message(full);
    JsonNode cut = wire.message(capped);

    assertThat(cut.path("stop_reason").asText()).isEqualTo("max_tokens");
    assertThat(cut.path("usage").path("output_tokens").asInt()).isEqualTo(5);
    assertThat(Words.count(Wire.text(cut))).isEqualTo(5);
    assertThat(Wire.text(answer)).startsWith(Wire.text(cut));
  }

  @Test
  void countTokensAndModelsHaveTheApiShapes() throws Exception {
    long tokens = client.messages().countTokens(MessageCountTokensParams.builder().model("emu-ok")
        .addUserMessage("one two three four").build()).inputTokens();
    ModelListPage models = client.models().list();
    HttpResponse<String> raw = wire.get("/v1/models");

    assertThat(tokens).isEqualTo(4);
    assertThat(models.data()).isNotEmpty();
    assertThat(models.hasMore()).contains(false);
    assertThat(models.firstId()).contains(models.data().getFirst().id());
    assertThat(models.lastId()).contains(models.data().getLast().id());
    assertThat(Json.tryParse(raw.body()).path("data").get(0).path("type").asText()).isEqualTo("model");
    assertThat(client.models().retrieve("claude-haiku-4-5").displayName()).isEqualTo("Claude Haiku 4.5");
  }

  @Test
  void credentialsAreRequiredAndKeysStartingWithInvalidAreRefused() throws Exception {
    HttpResponse<String> missing = Wire.HTTP_CLIENT.send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create(emulator.baseUrl() + "/v1/messages"))
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(Json.string(Wire.body("emu-ok", false, "hi"))))
        .build(), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> bearer = Wire.HTTP_CLIENT.send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create(emulator.baseUrl() + "/v1/messages")).header("authorization", "Bearer sk-test")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(Json.string(Wire.body("emu-ok", false, "hi"))))
        .build(), HttpResponse.BodyHandlers.ofString());
    AnthropicClient invalid = AnthropicOkHttpClient.builder().baseUrl(emulator.baseUrl()).apiKey("invalid-key")
        .maxRetries(0).build();

    assertThat(missing.statusCode()).isEqualTo(401);
    JsonNode error = Json.tryParse(missing.body());
    assertThat(error.path("type").asText()).isEqualTo("error");
    assertThat(error.path("error").path("type").asText()).isEqualTo("authentication_error");
    assertThat(error.path("error").path("message").asText()).isEqualTo("x-api-key header is required");
    assertThat(error.path("request_id").asText()).startsWith("req_");
    assertThat(bearer.statusCode()).isEqualTo(200);
    assertThatThrownBy(() -> invalid.messages().create(Sdk.params("emu-ok", "hi")))
        .isInstanceOf(UnauthorizedException.class).hasMessageContaining("invalid x-api-key");
    invalid.close();
  }

  @Test
  void invalidBodiesGetTheApisInvalidRequestErrors() throws Exception {
    HttpResponse<String> malformed = wire.post("/v1/messages", "{\"model\": ");
    ObjectNode noMaxTokens = Wire.body("emu-ok", false, "hi");
    noMaxTokens.remove("max_tokens");
    ObjectNode noModel = Wire.body("emu-ok", false, "hi");
    noModel.remove("model");
    ObjectNode noMessages = Wire.body("emu-ok", false);
    noMessages.remove("messages");

    assertThat(malformed.statusCode()).isEqualTo(400);
    assertThat(errorOf(malformed).path("type").asText()).isEqualTo("invalid_request_error");
    assertThat(errorOf(wire.post("/v1/messages", noMaxTokens)).path("message").asText())
        .isEqualTo("max_tokens: Field required");
    assertThat(errorOf(wire.post("/v1/messages", noModel)).path("message").asText()).isEqualTo("model: Field required");
    assertThat(errorOf(wire.post("/v1/messages", noMessages)).path("message").asText())
        .isEqualTo("messages: Field required");
    assertThat(wire.post("/v1/nothing", noModel).statusCode()).isEqualTo(404);
    assertThat(emulator.log()).extracting(LogEntry::action).containsExactly("400", "400", "400", "400", "404");
  }

  private static JsonNode errorOf(HttpResponse<String> response) {
    assertThat(response.statusCode()).isEqualTo(400);
    return Json.tryParse(response.body()).path("error");
  }
}
