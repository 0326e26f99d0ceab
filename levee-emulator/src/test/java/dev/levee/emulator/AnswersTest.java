package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import com.anthropic.client.AnthropicClient;
import com.anthropic.errors.BadRequestException;
import com.anthropic.models.messages.MessageCreateParams;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Answers are a function of the conversation; prefill and no-prefill continuations resume them. */
class AnswersTest extends InstantEmulatorTest {

  @Test
  void theSameConversationGetsTheSameAnswerWhateverTheModel() throws Exception {
    String first = Wire.text(wire.message(Wire.body("claude-sonnet-4-5", false, "Describe a harbor.")));
    String again = Wire.text(wire.message(Wire.body("claude-sonnet-4-5", false, "Describe a harbor.")));
    String otherModel = Wire.text(wire.message(Wire.body("claude-haiku-4-5", false, "Describe a harbor.")));
    String streamed = Wire.streamedText(wire.events(Wire.body("emu-ok", true, "Describe a harbor.")));
    String otherConversation = Wire.text(wire.message(Wire.body("claude-sonnet-4-5", false, "Describe a meadow.")));
    ObjectNode withSystem = Wire.body("claude-sonnet-4-5", false, "Describe a harbor.").put("system", "Be brief.");

    assertThat(Words.count(first)).isBetween(30, 60);
    assertThat(again).isEqualTo(first);
    assertThat(otherModel).isEqualTo(first);
    assertThat(streamed).isEqualTo(first);
    assertThat(otherConversation).isNotEqualTo(first);
    assertThat(Wire.text(wire.message(withSystem))).isNotEqualTo(first);
  }

  @Test
  void aDifferentSeedGivesDifferentAnswers() throws Exception {
    try (Emulator seeded = Emulator.start(EmulatorOptions.builder().seed(42).timeToFirstToken(Duration.ZERO).build())) {
      String other = Wire.text(new Wire(seeded).message(Wire.body("emu-ok", false, "Describe a harbor.")));

      assertThat(other).isNotEqualTo(Wire.text(wire.message(Wire.body("emu-ok", false, "Describe a harbor."))));
    }
  }

  @Test
  void aPrefillThatIsAPrefixGetsExactlyTheRemainder() throws Exception {
    AnthropicClient client = Sdk.client(emulator);
    String full = Sdk.text(client.messages().create(Sdk.params("claude-sonnet-4-5", "Describe a harbor.")));
    String prefix = full.substring(0, full.indexOf(' ', full.length() / 3) + 3); // ends inside a word

    MessageCreateParams prefilled = MessageCreateParams.builder().model("claude-haiku-4-5").maxTokens(1024)
        .addUserMessage("Describe a harbor.").addAssistantMessage(prefix).build();
    String json = Sdk.text(client.messages().create(prefilled));
    String streamed = Sdk.text(Sdk.streamed(client, prefilled));

    assertThat(prefix + json).isEqualTo(full);
    assertThat(streamed).isEqualTo(json);
    assertThat(emulator.log().getLast().continuation()).isEqualTo("prefill");
    assertThat(emulator.log().getLast().lastRole()).isEqualTo("assistant");
    client.close();
  }

  @Test
  void aPrefillThatIsNoPrefixGetsAFreshAnswer() throws Exception {
    String full = Wire.text(wire.message(Wire.body("emu-ok", false, "Describe a harbor.")));

    String fresh = Wire.text(wire.message(Wire.body("emu-ok", false, "Describe a harbor.", "Once upon")));

    assertThat(fresh).isNotEmpty();
    assertThat(full).doesNotContain(fresh);
    assertThat(emulator.log().getLast().continuation()).isNull();
  }

  @Test
  void noPrefillModelsAndClaude46RefuseATrailingAssistantMessage() {
    AnthropicClient client = Sdk.client(emulator);
    for (String model : new String[] {"emu-ok-noprefill", "emu-cut-5-noprefill", "claude-opus-4-6", "claude-sonnet-5"}) {
      MessageCreateParams prefilled = MessageCreateParams.builder().model(model).maxTokens(1024)
          .addUserMessage("Describe a harbor.").addAssistantMessage("Holds").build();

      assertThatThrownBy(() -> client.messages().create(prefilled))
          .as(model)
          .isInstanceOfSatisfying(BadRequestException.class, e -> {
            assertThat(e.statusCode()).isEqualTo(400);
            assertThat(e.getMessage()).contains("does not support assistant message prefill");
          });
    }
    assertThat(emulator.log()).extracting(LogEntry::action).containsOnly("400");
    client.close();
  }

  @Test
  void aFinalAssistantMessageEndingInWhitespaceIsRefusedLikeTheApiDoes() throws Exception {
    HttpResponse<String> response = wire.post("/v1/messages", Wire.body("emu-ok", false, "Hi", "Hello "));

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(Json.tryParse(response.body()).path("error").path("message").asText())
        .isEqualTo("messages: final assistant content cannot end with trailing whitespace");
  }

  @Test
  void aNoPrefillContinuationRepeatsTheLastTwoWordsThenContinues() throws Exception {
    String full = Wire.text(wire.message(Wire.body("claude-sonnet-4-5", false, "Describe a harbor.")));
    String partial = full.substring(0, full.indexOf(' ', full.length() / 2) + 3);

    JsonNode answer = wire.message(Wire.body("claude-opus-4-6", false, "Describe a harbor.", partial,
        "Continue exactly where you left off."));

    String continuation = Wire.text(answer);
    String overlap = Words.last(partial, 2);
    assertThat(Words.count(overlap)).isEqualTo(2);
    assertThat(continuation).startsWith(overlap);
    assertThat(partial + continuation.substring(overlap.length())).isEqualTo(full);
    assertThat(answer.path("usage").path("output_tokens").asInt()).isEqualTo(Words.count(continuation));
    assertThat(emulator.log().getLast().continuation()).isEqualTo("no-prefill");
  }

  @Test
  void overlapZeroGivesThePlainRemainder() throws Exception {
    try (Emulator exact = Emulator.start(EmulatorOptions.builder().continuationOverlap(0)
        .timeToFirstToken(Duration.ZERO).build())) {
      Wire exactWire = new Wire(exact);
      String full = Wire.text(exactWire.message(Wire.body("emu-ok", false, "Describe a harbor.")));
      String partial = Words.first(full, 7);

      String continuation = Wire.text(exactWire.message(Wire.body("emu-ok", false, "Describe a harbor.", partial,
          "continue")));

      assertThat(partial + continuation).isEqualTo(full);
    }
  }

  @Test
  void aCompleteEarlierAnswerIsAnOrdinaryNextTurn() throws Exception {
    String full = Wire.text(wire.message(Wire.body("emu-ok", false, "Describe a harbor.")));

    String next = Wire.text(wire.message(Wire.body("emu-ok", false, "Describe a harbor.", full, "And a meadow?")));

    assertThat(emulator.log().getLast().continuation()).isNull();
    assertThat(next).isNotEqualTo(full).doesNotStartWith(Words.last(full, 2));
  }
}
