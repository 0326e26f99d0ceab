package dev.levee.anthropic.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.message.TokenUsage;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class AnswerShapeTest {

  private static final String MESSAGE = """
      {"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"hi"}],
       "stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1},"new_field":true}""";

  @Test
  void aCompleteMessageWithUnknownFieldsPasses() {
    assertThat(AnswerShape.MESSAGE.problem(bytes(MESSAGE))).isEmpty();
  }

  @Test
  void aMessageMissingItsLastBraceIsNotAnAnswer() {
    assertThat(AnswerShape.MESSAGE.problem(bytes(MESSAGE.substring(0, MESSAGE.length() - 1))))
        .hasValue("the body is not complete JSON");
  }

  @Test
  void jsonThatIsNotAMessageIsNotAnAnswer() {
    assertThat(AnswerShape.MESSAGE.problem(bytes(""))).hasValue("the body is empty");
    assertThat(AnswerShape.MESSAGE.problem(bytes("[1]"))).hasValue("the body is not a JSON object");
    assertThat(AnswerShape.MESSAGE.problem(bytes("{\"type\":\"error\"}"))).hasValue("its type is not \"message\"");
    assertThat(AnswerShape.MESSAGE.problem(bytes(MESSAGE.replace("\"content\":[", "\"content\":7,\"x\":["))))
        .hasValue("it has no content array");
    assertThat(AnswerShape.MESSAGE.problem(bytes(MESSAGE.replace("[{\"type\":\"text\",", "[{"))))
        .hasValue("a content block has no type");
    assertThat(AnswerShape.MESSAGE.problem(bytes(MESSAGE.replace("\"usage\"", "\"use\""))))
        .hasValue("it has no usage object");
  }

  @Test
  void dataAfterTheObjectANonObjectBlockAndARepeatedFieldCount() {
    assertThat(AnswerShape.MESSAGE.problem(bytes(MESSAGE + " {}"))).hasValue("the body is not complete JSON");
    assertThat(AnswerShape.MESSAGE.problem(bytes("[1] x"))).hasValue("the body is not complete JSON");
    assertThat(AnswerShape.MESSAGE.problem(bytes("  "))).hasValue("the body is not a JSON object");
    assertThat(AnswerShape.MESSAGE.problem(bytes(MESSAGE.replace("[{\"type\":\"text\",", "[\"text\",{\"type\":\"text\","))))
        .hasValue("a content block has no type");
    assertThat(AnswerShape.MESSAGE.problem(bytes(MESSAGE.replace("\"type\":\"message\"",
        "\"type\":\"message\",\"type\":\"error\"")))).hasValue("its type is not \"message\"");
    assertThat(AnswerShape.MESSAGE.problem(bytes(MESSAGE.replace("\"content\":[", "\"content\":[],\"x\":["))))
        .isEmpty();
  }

  @Test
  void eachPathHasItsShape() {
    assertThat(AnswerShape.forPath("/v1/messages")).isEqualTo(AnswerShape.MESSAGE);
    assertThat(AnswerShape.forPath("/v1/messages/count_tokens")).isEqualTo(AnswerShape.TOKEN_COUNT);
    assertThat(AnswerShape.TOKEN_COUNT.problem(bytes("{\"input_tokens\":12}"))).isEmpty();
    assertThat(AnswerShape.TOKEN_COUNT.problem(bytes("{\"input_tokens\":\"12\"}"))).isPresent();
    assertThat(AnswerShape.forPath("/v1/other").problem(bytes("{}"))).isEmpty();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void theSamePassSaysWhetherAMessageIsFinished() {
    assertThat(AnswerShape.MESSAGE.check(bytes(MESSAGE)))
        .isEqualTo(new AnswerShape.Verdict(java.util.Optional.empty(), true, new TokenUsage(1, 1, 0, 0)));
    assertThat(AnswerShape.MESSAGE.check(bytes(MESSAGE.replace("\"end_turn\"", "null"))).finished())
        .as("stop_reason null: an answer, but not a finished one to cache").isFalse();
    assertThat(AnswerShape.MESSAGE.check(bytes(MESSAGE.replace("\"stop_reason\":\"end_turn\",", ""))).finished()).isFalse();
    assertThat(AnswerShape.MESSAGE.check(bytes(MESSAGE.replace("\"usage\"", "\"use\"")))).satisfies(verdict -> {
      assertThat(verdict.problem()).hasValue("it has no usage object");
      assertThat(verdict.finished()).as("never finished with a problem").isFalse();
    });
    assertThat(AnswerShape.OBJECT.check(bytes(MESSAGE)).finished()).as("only a message is finished").isFalse();
  }

  /** The metrics take usage from the shape's pass: it must read what the parsed tree says. */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {
      "\"usage\":{\"input_tokens\":12,\"output_tokens\":7,\"cache_read_input_tokens\":5,\"cache_creation_input_tokens\":3}",
      "\"usage\":{\"output_tokens\":7,\"server_tool_use\":{\"web_search_requests\":2},\"input_tokens\":12}",
      "\"usage\":{\"input_tokens\":\"12\",\"output_tokens\":2.0}",
      "\"usage\":{}"})
  void theSamePassReadsTheUsageAsTokenUsageDoes(String usage) {
    byte[] body = bytes("{\"type\":\"message\",\"content\":[],\"stop_reason\":\"end_turn\"," + usage + "}");

    AnswerShape.Verdict verdict = AnswerShape.MESSAGE.check(body);

    assertThat(verdict.problem()).isEmpty();
    assertThat(verdict.usage()).isEqualTo(TokenUsage.of(dev.levee.anthropic.Json.tryParse(body).path("usage")));
  }

  @Test
  void aUsageGivenTwiceCountsAsItsLastValue() {
    byte[] body = bytes("{\"type\":\"message\",\"content\":[],\"usage\":{\"input_tokens\":1},"
        + "\"usage\":{\"input_tokens\":9,\"output_tokens\":4}}");

    assertThat(AnswerShape.MESSAGE.check(body).usage()).isEqualTo(new TokenUsage(9, 4, 0, 0));
  }

  @Test
  void noUsageIsReadWhenTheShapeIsWrongOrNotAMessage() {
    assertThat(AnswerShape.MESSAGE.check(bytes(MESSAGE.replace("\"type\":\"message\"", "\"type\":\"x\""))).usage())
        .isEqualTo(TokenUsage.NONE);
    assertThat(AnswerShape.OBJECT.check(bytes(MESSAGE)).usage()).isEqualTo(TokenUsage.NONE);
  }
}
