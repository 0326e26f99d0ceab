package dev.levee.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.message.MessagesRequest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Malformed bodies are described in plain words with a position, never in the parser's. */
class JsonSyntaxTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
      "{                                  | it ends before the JSON is complete (line 1, column 2)",
      "{\"model\":                        | it ends before the JSON is complete",
      "{\"model\":\"m\",}                 | unexpected '}' where a field name in double quotes was expected (line 1, column 14)",
      "{'model':'m'}                      | unexpected ''' where a field name in double quotes was expected",
      "{\"model\":\"m\" \"x\":1}          | unexpected '\"' where a comma or '}' was expected",
      "{\"model\":\"m\"} trailing         | unexpected 'trailing'",
      "{\"model\":\"m\",\"x\":NaN}        | 'NaN' is not a JSON value",
      "{\"model\":\"\\uZZZZ\"}            | unexpected 'Z' in a \\u escape (four hex digits expected)",
      "{\"model\":\"m\",\"x\":[1}         | a closing bracket does not match its opening one",
  })
  void describesWhatIsWrongAndWhere(String body, String expected) {
    assertThat(refusal(body.getBytes(StandardCharsets.UTF_8))).startsWith("request body is not valid JSON: " + expected)
        .satisfies(JsonSyntaxTest::saysNothingOfTheParser);
  }

  @Test
  void controlCharactersBadUtf8AndLimitsAreNamed() {
    assertThat(refusal("{\"model\":\"m\nx\"}".getBytes(StandardCharsets.UTF_8)))
        .startsWith("request body is not valid JSON: a control character (U+000A) inside a string must be escaped");
    assertThat(refusal(new byte[] {'{', '"', 'm', (byte) 0xff, '"', ':', '1', '}'}))
        .startsWith("request body is not valid UTF-8: the byte at offset 3 (0xFF) is not a UTF-8 character"); // Utf8, before the parser's words
    assertThat(refusal(("{\"x\":" + "[".repeat(3000) + "]".repeat(3000) + "}").getBytes(StandardCharsets.UTF_8)))
        .startsWith("request body is not valid JSON: it is nested more than 2000 levels deep");
    assertThat(refusal(("{\"x\":1" + "0".repeat(20_000) + "}").getBytes(StandardCharsets.UTF_8)))
        .startsWith("request body is not valid JSON: a number is longer than 10000 characters");
    assertThat(refusal(new byte[] {(byte) 0xff, (byte) 0xfe, '{', '}'})).satisfies(JsonSyntaxTest::saysNothingOfTheParser);
  }

  /** Regression: the gateway routed the first {@code model}, the upstream read the last. */
  @Test
  void aTopLevelFieldGivenTwiceIsRefused() {
    assertThat(refusal("{\"model\":\"smart\",\"max_tokens\":5,\"model\":\"other\"}".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("model: given more than once");
    assertThat(refusal("{\"model\":\"m\",\"stream\":false,\"stream\":true}".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("stream: given more than once");
  }

  private static void saysNothingOfTheParser(String message) {
    assertThat(message).doesNotContain("code ", "Source", "`", "Jackson", "Stream", "Feature", "CTRL-CHAR", "marker",
        "Exception", "java.");
  }

  private static String refusal(byte[] body) {
    try {
      MessagesRequest.parse(body);
      throw new AssertionError("accepted");
    } catch (MessagesRequest.InvalidRequestException e) {
      return e.getMessage();
    }
  }
}
