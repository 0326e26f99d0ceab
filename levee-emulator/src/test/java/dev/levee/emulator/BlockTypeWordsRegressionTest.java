package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import org.junit.jupiter.api.Test;

/**
 * Regression: the emulator counted a content block's {@code type} as a word of input, so content
 * sent as a text block cost one token more than the same content sent as a string (the API counts
 * them alike), and a prefilled partial answer cost one more than the words it was answered with —
 * which a gateway comparing a continuation's input with the first attempt's (Levee's stream
 * recovery) read as a token of output that never was.
 */
class BlockTypeWordsRegressionTest extends InstantEmulatorTest {

  private long inputTokens(ObjectNode body) throws Exception {
    ObjectNode count = body.deepCopy();
    count.remove("max_tokens"); // count_tokens refuses it, as the API does
    return Json.tryParse(wire.post("/v1/messages/count_tokens", count).body()).path("input_tokens").asLong();
  }

  @Test
  void aTextBlockCountsAsTheSameTextSentAsAString() throws Exception {
    ObjectNode asString = Wire.body("emu-ok", false, "one two three");
    ObjectNode asBlock = asString.deepCopy();
    ((ObjectNode) asBlock.withArray("messages").get(0)).putArray("content").addObject()
        .put("type", "text").put("text", "one two three");

    assertThat(inputTokens(asBlock)).isEqualTo(inputTokens(asString)).isEqualTo(3);
  }

  @Test
  void aPrefilledPartialAnswerCostsItsWords() throws Exception {
    ObjectNode question = Wire.body("emu-ok", false, "one two three");
    ObjectNode prefilled = question.deepCopy();
    ObjectNode assistant = prefilled.withArray("messages").addObject().put("role", "assistant");
    assistant.putArray("content").addObject().put("type", "text").put("text", "four five");

    assertThat(inputTokens(prefilled) - inputTokens(question)).isEqualTo(2);
  }
}
