package dev.levee.gateway.batches;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12, hostile clients): a float no BigDecimal holds ({@code 1e99999999999})
 * anywhere in a batch body made the batch parser throw NumberFormatException, which escaped as
 * Levee's 500 with an ERROR stack trace; {@code /v1/messages} and the admin endpoints already
 * answered it as the client's 400 (HugeExponentThroughTheGatewayRegressionTest).
 */
class BatchHugeExponentRegressionTest {

  @Test
  void aHugeExponentInABatchIsTheClientsError() {
    String body = "{\"requests\":[{\"custom_id\":\"a\",\"params\":{\"model\":\"m\",\"max_tokens\":8,"
        + "\"temperature\":1e99999999999,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}}]}";

    BatchParser.Refused refused = catchThrowableOfType(BatchParser.Refused.class,
        () -> BatchParser.parse(body.getBytes(StandardCharsets.UTF_8)));

    assertThat(refused).isNotNull();
    assertThat(refused.error.status()).isEqualTo(400);
    assertThat(refused.error.type()).isEqualTo("invalid_request_error");
    assertThat(refused.error.message()).startsWith("request body is not valid JSON: ");
  }
}
