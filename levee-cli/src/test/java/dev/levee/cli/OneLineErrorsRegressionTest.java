package dev.levee.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 8 newcomer trial): {@code levee serve} with a job store it could not reach
 * printed only {@code levee serve: Connection refused}, the innermost message, although Levee's
 * own said what it was connecting to ("cannot open the queue store …: Connection to … refused"). The
 * one line is now the outermost message that repeats its cause's (it adds what was being done).
 */
class OneLineErrorsRegressionTest {

  @Test
  void whatWasBeingDoneIsKeptWhenItRepeatsTheRootCause() {
    IOException root = new IOException("Connection refused");
    RuntimeException driver = new RuntimeException("Connection to 127.0.0.1:5999 refused.", root);
    RuntimeException pool = new RuntimeException("Failed to initialize pool: " + driver.getMessage(), driver);
    IllegalStateException levee = new IllegalStateException(
        "cannot open the queue store QueueConfig[store=postgresql://127.0.0.1:5999/test]: " + pool.getMessage(), pool);

    assertThat(OneLineErrors.reason(new RuntimeException(levee))).isEqualTo(levee.getMessage());
  }

  @Test
  void theRootCauseWhenNoOuterMessageRepeatsIt() {
    IOException root = new IOException("Address already in use");
    assertThat(OneLineErrors.reason(new IllegalStateException("failed to start", root)))
        .isEqualTo("Address already in use");
  }

  @Test
  void theClassNameWhenNothingHasAMessage() {
    assertThat(OneLineErrors.reason(new IllegalStateException())).isEqualTo("IllegalStateException");
  }
}
