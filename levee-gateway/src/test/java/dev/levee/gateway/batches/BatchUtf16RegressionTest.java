package dev.levee.gateway.batches;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (session 13, hostile clients): a batch body in UTF-16 or UTF-32 was accepted — the
 * JSON parser decodes them by itself — while {@code /v1/messages} refuses such a body as the
 * client's 400 (session 12, {@code Utf16BodyRegressionTest}). Batches now refuse it the same way,
 * with the same words ({@code JsonSyntax.NOT_UTF8}), and still take UTF-8 with or without a BOM.
 */
class BatchUtf16RegressionTest {

  private static final String BATCH = "{\"requests\":[{\"custom_id\":\"a\",\"params\":{\"model\":\"smart\","
      + "\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}}]}";

  @ParameterizedTest
  @ValueSource(strings = {"UTF-16", "UTF-16BE", "UTF-16LE", "UTF-32BE", "UTF-32LE"})
  void aBatchThatIsNotUtf8IsRefusedAsTheMessagesPathRefusesIt(String charset) {
    BatchParser.Refused refused = catchThrowableOfType(BatchParser.Refused.class,
        () -> BatchParser.parse(BATCH.getBytes(Charset.forName(charset))));

    assertThat(refused).isNotNull();
    assertThat(refused.error.status()).isEqualTo(400);
    assertThat(refused.error.type()).isEqualTo("invalid_request_error");
    assertThat(refused.error.message()).as("the words of /v1/messages").isEqualTo(
        "request body is not UTF-8; JSON must be sent as UTF-8 (RFC 8259 section 8.1)");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "\uFEFF"})
  void utf8WithOrWithoutABomStillParses(String bom) throws Exception {
    assertThat(BatchParser.parse((bom + BATCH).getBytes(StandardCharsets.UTF_8))).hasSize(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {" {}", " x", "]"})
  void dataAfterTheBatchIsStillRefused(String tail) {
    BatchParser.Refused refused = catchThrowableOfType(BatchParser.Refused.class,
        () -> BatchParser.parse((BATCH + tail).getBytes(StandardCharsets.UTF_8)));

    assertThat(refused).isNotNull();
    assertThat(refused.error.message()).startsWith("request body is not valid JSON");
  }
}
