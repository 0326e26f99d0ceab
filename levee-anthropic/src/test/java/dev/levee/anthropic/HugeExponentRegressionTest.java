package dev.levee.anthropic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.anthropic.stream.RecoveryRequest;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12): {@link Json#tryParse} let the {@link NumberFormatException} of a float no
 * BigDecimal holds ({@code 1e99999999999}) escape instead of answering "not JSON", so a client's
 * {@code "temperature": 1e99999999999} made the emulator fail with 500 (and a gateway before it
 * retried, then opened its circuits), and the same number in an admin force was a 500 of Levee's.
 */
class HugeExponentRegressionTest {

  @Test
  void aNumberNoBigDecimalHoldsIsNotJsonWeRead() {
    String body = "{\"model\":\"m\",\"temperature\":1e99999999999}";
    assertThat(Json.tryParse(body)).isNull();
    assertThat(Json.tryParse(body.getBytes(StandardCharsets.UTF_8))).isNull();
    assertThat(Json.tryParse("{\"temperature\":1e999}").path("temperature").isNumber()).isTrue(); // large, but held
  }

  /** Review: the same number in a stream's recovery request escaped as an unexpected NumberFormatException. */
  @Test
  void aRecoveryOfSuchABodyFailsAsNotJson() {
    byte[] body = "{\"model\":\"m\",\"max_tokens\":9,\"temperature\":1e99999999999,\"messages\":[]}"
        .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> RecoveryRequest.build(body, "m", List.of(), true, 0))
        .isInstanceOf(UncheckedIOException.class).hasMessageContaining("not a JSON object");
  }
}
