package dev.levee.gateway.batches;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Found by a newcomer trial: a malformed batch body was answered with Jackson's own message
 * ("expected close marker for Array (start marker at [Source: REDACTED
 * (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled) ..."), unlike {@code /v1/messages},
 * which says what is wrong with a line and column; an empty body was "must be a JSON object".
 */
class BatchJsonErrorRegressionTest {

  @Test
  void aMalformedBatchIsDescribedAsTheMessagesPathDescribesIt() {
    String message = refusal("{\"requests\":[");

    assertThat(message).startsWith("request body is not valid JSON: ").contains("line 1")
        .doesNotContain("REDACTED", "StreamReadFeature", "marker");
    assertThat(refusal("hello")).startsWith("request body is not valid JSON: ").doesNotContain("JSON String");
  }

  @Test
  void anEmptyBodyIsCalledEmpty() {
    assertThat(refusal("")).isEqualTo("request body is empty; expected a JSON object");
    assertThat(refusal("[]")).isEqualTo("request body must be a JSON object");
  }

  private static String refusal(String body) {
    BatchParser.Refused refused = catchThrowableOfType(BatchParser.Refused.class,
        () -> BatchParser.parse(body.getBytes(StandardCharsets.UTF_8)));
    assertThat(refused).as("refused: %s", body).isNotNull();
    return refused.error.message();
  }
}
