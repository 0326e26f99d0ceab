package dev.levee.gateway.batches;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 13): a batch naming a field twice ({@code
 * {"requests":[…],"requests":[…]}}) was refused as "request body is not valid JSON (line 1, column
 * 129)", while {@code /v1/messages} says "requests: given more than once". Batches now use those
 * words, with the place of the field inside the batch.
 */
class BatchDuplicateFieldRegressionTest {

  private static final String REQUEST = "{\"custom_id\":\"a\",\"params\":{\"model\":\"smart\",\"max_tokens\":8,"
      + "\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}}";

  @Test
  void aTopLevelFieldGivenTwiceIsNamedAsTheMessagesPathNamesIt() {
    assertThat(refusal("{\"requests\":[" + REQUEST + "],\"requests\":[" + REQUEST + "]}"))
        .isEqualTo("requests: given more than once");
  }

  @Test
  void aFieldGivenTwiceInsideARequestIsNamedWithItsPlace() {
    assertThat(refusal("{\"requests\":[" + REQUEST + ",{\"custom_id\":\"b\",\"custom_id\":\"c\"}]}"))
        .isEqualTo("requests.1.custom_id: given more than once");
    assertThat(refusal("{\"requests\":[{\"custom_id\":\"a\",\"params\":{\"model\":\"a\",\"model\":\"b\"}}]}"))
        .isEqualTo("requests.0.params.model: given more than once");
  }

  @Test
  void aLongFieldNameGivenTwiceIsCut() {
    String name = "f".repeat(10_000);
    assertThat(refusal("{\"" + name + "\":1,\"" + name + "\":2}")).hasSizeLessThan(200).endsWith(": given more than once");
  }

  private static String refusal(String body) {
    BatchParser.Refused refused = catchThrowableOfType(BatchParser.Refused.class,
        () -> BatchParser.parse(body.getBytes(StandardCharsets.UTF_8)));
    assertThat(refused).as("refused: %s", body).isNotNull();
    assertThat(refused.error.status()).isEqualTo(400);
    return refused.error.message();
  }
}
