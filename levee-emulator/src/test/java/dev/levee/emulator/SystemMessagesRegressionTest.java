package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * Regression (issue 9, item 9): current Claude Code sends messages of role {@code system} with the
 * {@code mid-conversation-system-2026-04-07} beta; the emulator refused them with 400, so {@code
 * claude} failed against the no-key set-up, and its log recorded {@code model: null, stream:
 * false} for the refused request.
 */
class SystemMessagesRegressionTest extends InstantEmulatorTest {

  private static final String BETA = "mid-conversation-system-2026-04-07";

  @Test
  void withTheBetaASystemMessageInTheConversationIsAnswered() throws Exception {
    ObjectNode body = withSystemMessage(false);

    HttpResponse<String> response = Wire.HTTP_CLIENT.send(
        wire.request("/v1/messages", body).header("anthropic-beta", "other-beta," + BETA).build(),
        HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode message = Json.tryParse(response.body());
    assertThat(message.path("type").asText()).isEqualTo("message");
    assertThat(Wire.text(message)).isNotEmpty();
    assertThat(emulator.log().getLast().lastRole()).isEqualTo("user");
  }

  @Test
  void withTheBetaAStreamWithASystemMessageIsAnswered() throws Exception {
    HttpResponse<String> response = Wire.HTTP_CLIENT.send(
        wire.request("/v1/messages", withSystemMessage(true)).header("anthropic-beta", BETA).build(),
        HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(response.body()).contains("event: message_stop");
  }

  @Test
  void withoutTheBetaTheApisRefusalIsKeptAndTheLogSaysWhatWasAsked() throws Exception {
    HttpResponse<String> response = wire.post("/v1/messages", withSystemMessage(true));

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(Json.tryParse(response.body()).path("error").path("message").asText())
        .isEqualTo("messages.1.role: Input should be 'user' or 'assistant'");
    LogEntry refused = emulator.log().getLast();
    assertThat(refused.model()).isEqualTo("emu-ok");
    assertThat(refused.stream()).isTrue();
    assertThat(refused.status()).isEqualTo(400);
  }

  @Test
  void everyRefusedBodyThatNamesAModelIsLoggedWithIt() throws Exception {
    ObjectNode noMaxTokens = Wire.body("emu-529", true, "hello");
    noMaxTokens.remove("max_tokens");

    assertThat(wire.post("/v1/messages", noMaxTokens).statusCode()).isEqualTo(400);
    assertThat(wire.post("/v1/messages/count_tokens", "{\"model\":\"emu-ok\",\"messages\":7}").statusCode())
        .isEqualTo(400);

    assertThat(emulator.log()).extracting(LogEntry::model, LogEntry::stream)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("emu-529", true),
            org.assertj.core.groups.Tuple.tuple("emu-ok", false));
  }

  private static ObjectNode withSystemMessage(boolean stream) {
    ObjectNode body = Wire.body("emu-ok", stream, "Write a haiku.");
    ObjectNode system = body.withArray("messages").addObject();
    system.put("role", "system");
    system.put("content", "The user prefers short answers.");
    body.withArray("messages").addObject().put("role", "user").put("content", "Go on.");
    return body;
  }
}
