package dev.levee.anthropic.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecoveryRequestTest {

  private static final byte[] ORIGINAL = ("{\"model\":\"smart\",\"max_tokens\":100,\"temperature\":0.70,\"x_future\":{\"a\":1},"
      + "\"system\":\"be brief\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"Tell me\"}]}")
      .getBytes(StandardCharsets.UTF_8);

  private static ObjectNode text(String t) {
    return Json.MAPPER.createObjectNode().put("type", "text").put("text", t);
  }

  private static JsonNode build(List<ObjectNode> partial, boolean prefill) {
    return Json.tryParse(RecoveryRequest.build(ORIGINAL, "claude-x", partial, prefill, 0));
  }

  @Test
  void aPrefillEndsWithThePartialAnswerWithoutTrailingWhitespace() {
    JsonNode body = build(List.of(text("The quick brown ")), true);

    JsonNode messages = body.get("messages");
    assertThat(messages).hasSize(2);
    assertThat(messages.get(1).path("role").asText()).isEqualTo("assistant");
    assertThat(messages.get(1).path("content").get(0).path("text").asText()).isEqualTo("The quick brown");
    assertThat(body.path("model").asText()).isEqualTo("claude-x");
  }

  @Test
  void withoutPrefillTheConversationEndsInAUserTurnAskingToContinue() {
    JsonNode body = build(List.of(text("The quick brown ")), false);

    JsonNode messages = body.get("messages");
    assertThat(messages).hasSize(3);
    assertThat(messages.get(1).path("content").get(0).path("text").asText()).isEqualTo("The quick brown ");
    assertThat(messages.get(2).path("role").asText()).isEqualTo("user");
    assertThat(messages.get(2).path("content").get(0).path("text").asText()).isEqualTo(RecoveryRequest.INSTRUCTION);
  }

  @Test
  void everythingElseOfTheRequestIsKept() {
    JsonNode body = build(List.of(text("x")), false);
    assertThat(body.path("x_future").path("a").asInt()).isEqualTo(1);
    assertThat(body.path("temperature").toString()).isEqualTo("0.70");
    assertThat(body.path("system").asText()).isEqualTo("be brief");
    assertThat(body.path("stream").asBoolean()).isTrue();
  }

  @Test
  void noPartialContentSendsTheRequestAsItWas() {
    JsonNode body = build(List.of(), false);
    assertThat(body.get("messages")).hasSize(1);
    assertThat(build(List.of(text("   ")), true).get("messages")).hasSize(1);
  }

  @Test
  void aClientsOwnPrefillIsMergedWithThePartialAnswer() {
    byte[] prefilled = ("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Q\"},"
        + "{\"role\":\"assistant\",\"content\":\"The answer is\"}]}").getBytes(StandardCharsets.UTF_8);
    JsonNode body = Json.tryParse(RecoveryRequest.build(prefilled, "m", List.of(text(" 4")), true, 0));

    assertThat(body.get("messages")).hasSize(2);
    assertThat(body.get("messages").get(1).path("content").get(0).path("text").asText()).isEqualTo("The answer is 4");
  }
}
