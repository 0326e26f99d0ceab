package dev.levee.gateway.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): a malformed {@code queue.secret} was reported at the line of {@code
 * queue:}, not at the secret's own line, because its message began {@code queue.secret} and the
 * loader looked for {@code queue.queue.secret}. It now points at the value, and never prints it.
 */
class QueueSecretLineRegressionTest {

  @Test
  void aMalformedSecretIsReportedAtItsOwnLineWithoutItsValue() {
    String yaml = """
        upstreams: { emu: { url: "http://127.0.0.1:9" } }
        queue:
          workers: 2
          secret: not-base64!!
        """;

    assertThatThrownBy(() -> new ConfigLoader(Map.<String, String>of()::get).parse(yaml, "levee.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("levee.yaml: line 4, column 11: queue.secret: secret is not base64")
        .hasMessageNotContaining("not-base64!!");
  }

  @Test
  void aSecretOfTheWrongLengthIsReportedAtItsOwnLine() {
    String yaml = "upstreams: { emu: { url: \"http://127.0.0.1:9\" } }\nqueue:\n  secret: c2hvcnQ=\n";

    assertThatThrownBy(() -> new ConfigLoader(Map.<String, String>of()::get).parse(yaml, "levee.yaml"))
        .hasMessageStartingWith("levee.yaml: line 3, column 11: queue.secret: secret must decode to 16, 24 or 32 bytes, was 5");
  }
}
