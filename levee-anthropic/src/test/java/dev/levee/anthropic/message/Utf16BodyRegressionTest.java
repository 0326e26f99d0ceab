package dev.levee.anthropic.message;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (session 12, hostile clients): a body in UTF-16 or UTF-32 (which the JSON parser
 * detects by itself from zero bytes or a BOM) has no byte offsets, so parsing failed with
 * ArrayIndexOutOfBoundsException and the gateway answered 500 with an ERROR stack trace. It is
 * the client's 400: JSON on the wire is UTF-8 (RFC 8259 section 8.1).
 */
class Utf16BodyRegressionTest {

  @ParameterizedTest
  @ValueSource(strings = {"UTF-16", "UTF-16BE", "UTF-16LE", "UTF-32BE", "UTF-32LE"})
  void aBodyThatIsNotUtf8IsTheClientsError(String charset) {
    byte[] body = "{\"model\":\"smart\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"
        .getBytes(Charset.forName(charset));

    assertThatThrownBy(() -> MessagesRequest.parse(body))
        .isInstanceOf(MessagesRequest.InvalidRequestException.class)
        .hasMessageContaining("UTF-8");
  }

  @ParameterizedTest
  @ValueSource(strings = {"{\"model\":\"smart\"}", "\uFEFF{\"model\":\"smart\"}"})
  void utf8WithOrWithoutABomStillParses(String text) throws Exception {
    org.assertj.core.api.Assertions.assertThat(MessagesRequest.parse(text.getBytes(StandardCharsets.UTF_8)).model())
        .isEqualTo("smart");
  }
}
