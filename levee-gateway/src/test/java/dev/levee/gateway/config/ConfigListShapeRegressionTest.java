package dev.levee.gateway.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): a chain list written wrongly was either taken as one odd target
 * ({@code [up/a up/b]}, a comma forgotten, became model {@code "a up/b"}) or reported only as
 * "expected a list, got a single value" ({@code up/a, up/b]}, the bracket forgotten). Both now
 * refuse the line and say how a list is written.
 */
class ConfigListShapeRegressionTest {

  private static final String UPSTREAMS = "upstreams:\n  up: { url: \"http://127.0.0.1:1\" }\nmodels:\n  fast:\n";

  private static void parse(String yaml) throws ConfigException {
    new ConfigLoader(Map.<String, String>of()::get).parse(yaml, "levee.yaml");
  }

  @Test
  void aForgottenCommaIsNotOneTargetWithASpaceInItsModel() {
    assertThatThrownBy(() -> parse(UPSTREAMS + "    chain: [up/a up/b]\n"))
        .hasMessageStartingWith("levee.yaml: line 5")
        .hasMessageContaining("models.fast.chain[0]")
        .hasMessageContaining("without spaces or commas, was 'up/a up/b' (a list of targets is written [up/a, up/b])");
  }

  @Test
  void aForgottenBracketSaysHowAListIsWritten() {
    assertThatThrownBy(() -> parse(UPSTREAMS + "    chain: up/a, up/b]\n"))
        .hasMessage("levee.yaml: line 5, column 12: models.fast.chain: expected a list, got a single value"
            + " (write [a, b], or one '- a' per line)");
  }
}
