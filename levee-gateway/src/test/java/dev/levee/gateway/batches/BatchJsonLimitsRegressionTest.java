package dev.levee.gateway.batches;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial, session 13): {@code BatchParser} built its own Jackson mapper with
 * Jackson's default read limits (strings of 20,000,000 characters, nesting 1000 deep) while {@code
 * /v1/messages} reads with {@code Json.MAPPER}'s (strings bounded by the body only, nesting 2000
 * deep). A batch holding one 20,001,000-character string (a 15 MB PDF in base64, which a single
 * message may carry) was refused "exceeds a size limit", and a batch nested 1,500 deep was refused
 * with a message saying "more than 2000 levels". Batches now read with {@code Json.MAPPER}'s limits.
 */
class BatchJsonLimitsRegressionTest {

  @Test
  void aStringAsLongAsALargePdfInBase64IsAccepted() throws Exception {
    String data = "A".repeat(20_001_000);

    var entries = BatchParser.parse(batch("[{\"role\":\"user\",\"content\":[{\"type\":\"document\",\"source\":"
        + "{\"type\":\"base64\",\"media_type\":\"application/pdf\",\"data\":\"" + data + "\"}}]}]"));

    assertThat(entries).hasSize(1);
    assertThat(entries.getFirst().params().length).isGreaterThan(20_001_000);
  }

  @Test
  void nestingUpToTheMessagesLimitIsAcceptedAndBeyondItRefusedInItsWords() throws Exception {
    assertThat(BatchParser.parse(batch(nestedMessages(1_500)))).hasSize(1);

    BatchParser.Refused refused = catchThrowableOfType(BatchParser.Refused.class,
        () -> BatchParser.parse(batch(nestedMessages(2_100))));
    assertThat(refused).isNotNull();
    assertThat(refused.error.message()).startsWith("request body is not valid JSON: it is nested more than 2000 levels deep");
  }

  /** Messages whose one message holds an unknown field nested {@code depth} arrays deep (the whole body is deeper by 6). */
  private static String nestedMessages(int depth) {
    return "[{\"role\":\"user\",\"content\":\"x\",\"deep\":" + "[".repeat(depth) + "]".repeat(depth) + "}]";
  }

  private static byte[] batch(String messages) {
    return ("{\"requests\":[{\"custom_id\":\"a\",\"params\":{\"model\":\"smart\",\"max_tokens\":8,\"messages\":"
        + messages + "}}]}").getBytes(StandardCharsets.UTF_8);
  }
}
