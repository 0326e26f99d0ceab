package dev.levee.anthropic.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.levee.anthropic.error.ClientText;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 13, hostile clients): a client's value was quoted in full in the 400's
 * message — a {@code max_tokens} of 10,000 digits made a 10 KB error, a field named twice with a
 * 50,000-character name a 50 KB one. The message now quotes at most {@value ClientText#SHOWN}
 * characters of it ({@link ClientText#shown}).
 */
class HugeValuesEchoedRegressionTest {

  @Test
  void aTenThousandDigitMaxTokensIsQuotedCut() {
    String message = refusal("{\"model\":\"m\",\"max_tokens\":" + "9".repeat(10_000) + ",\"messages\":[]}");

    assertThat(message).startsWith("max_tokens: Input should be a valid integer, was 999").endsWith("...")
        .hasSizeLessThan(200);
  }

  @Test
  void aHugeFieldNameGivenTwiceIsQuotedCut() {
    String name = "k".repeat(50_000);
    String message = refusal("{\"model\":\"m\",\"" + name + "\":1,\"" + name + "\":2}");

    assertThat(message).endsWith("...: given more than once").hasSizeLessThan(200);
  }

  private static String refusal(String body) {
    MessagesRequest.InvalidRequestException refused = catchThrowableOfType(
        MessagesRequest.InvalidRequestException.class, () -> MessagesRequest.parse(body.getBytes(StandardCharsets.UTF_8)));
    assertThat(refused).isNotNull();
    return refused.getMessage();
  }
}
