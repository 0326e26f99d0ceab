package dev.levee.gateway.batches;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (session 15, hostile clients): a batch whose params held an overlong form or an
 * encoded surrogate in a message's text was stored and its params sent on (the JSON parser
 * decodes them without a word, and the tree writes them back as other bytes); a bad byte the
 * parser met gave its words without where. It is now refused whole with the 400 {@code
 * /v1/messages} gives, naming the byte offset of the first bad sequence.
 */
class BatchMalformedUtf8RegressionTest {

  private static final String HEAD = "{\"requests\":[{\"custom_id\":\"a\",\"params\":{\"model\":\"smart\","
      + "\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"x";

  @ParameterizedTest
  @ValueSource(strings = {"c0af", "e080af", "eda080", "edbfbf", "ff", "80", "f4908080", "e282"})
  void anIllFormedSequenceRefusesTheBatchAtItsOffset(String hex) {
    BatchParser.Refused refused = catchThrowableOfType(BatchParser.Refused.class, () -> BatchParser.parse(batch(hex)));

    assertThat(refused).as(hex).isNotNull();
    assertThat(refused.error.status()).isEqualTo(400);
    assertThat(refused.error.type()).isEqualTo("invalid_request_error");
    assertThat(refused.error.message()).startsWith("request body is not valid UTF-8: the ")
        .contains("at offset " + (HEAD.length()) + " ");
  }

  @ParameterizedTest
  @ValueSource(strings = {"e282ac", "f09f9880", "c2a9"})
  void wellFormedCharactersStillPass(String hex) throws Exception {
    assertThat(BatchParser.parse(batch(hex))).hasSize(1);
  }

  private static byte[] batch(String hex) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(HEAD.getBytes(StandardCharsets.UTF_8));
    out.writeBytes(HexFormat.of().parseHex(hex));
    out.writeBytes("\"}]}}]}".getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }
}
