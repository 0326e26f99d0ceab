package dev.levee.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression: a value a config section refused ({@code port: 70000} on line 2) was reported at
 * the section's key on line 1, and a YAML syntax error kept only SnakeYAML's context ("while
 * scanning a quoted scalar") and lost what the parser expected or found. Both now name the line
 * and column of the value, in one line.
 */
class ConfigLinesRegressionTest {

  private static void parse(String yaml) throws ConfigException {
    new ConfigLoader(Map.<String, String>of()::get).parse(yaml, "levee.yaml");
  }

  @Test
  void aValueARecordRefusesIsReportedWhereTheValueIs() {
    assertThatThrownBy(() -> parse("server:\n  port: 70000\nupstreams: { a: { url: https://x } }\n"))
        .hasMessage("levee.yaml: line 2, column 9: server.port: port must be 0-65535, was 70000");
    assertThatThrownBy(() -> parse("upstreams: { a: { url: https://x } }\nserver: { port: 70000 }\n"))
        .hasMessage("levee.yaml: line 2, column 17: server.port: port must be 0-65535, was 70000");
    assertThatThrownBy(() -> parse("upstreams: { a: { url: https://x } }\nqueue:\n  poll: 1s\n  workers: 5000\n"))
        .hasMessageStartingWith("levee.yaml: line 4, column 12: queue.workers: workers must be 1-1024");
  }

  /** Newcomer trial (session 23): "policy.stream: stream timeouts must be positive" named no key. */
  @Test
  void aStreamSettingIsNamedAndReportedWhereItIs() {
    assertThatThrownBy(() -> parse("upstreams: { a: { url: https://x } }\npolicy:\n  stream: { idle-timeout: 0ms }\n"))
        .hasMessage("levee.yaml: line 3, column 27: policy.stream.idle-timeout: idle-timeout must be positive, was 0s");
    assertThatThrownBy(() -> parse("upstreams: { a: { url: https://x } }\npolicy:\n  stream: { max-resumes: -1 }\n"))
        .hasMessageEndingWith("policy.stream.max-resumes: max-resumes must not be negative, was -1");
  }

  @Test
  void anUnknownKeyIsReportedWhereTheKeyIs() {
    assertThatThrownBy(() -> parse("upstreams: { a: { url: https://x } }\npolicy:\n  deadlin: 30s\n"))
        .hasMessageStartingWith("levee.yaml: line 3, column 3: policy.deadlin: unknown key 'deadlin'");
  }

  /**
   * Newcomer trial, session 22: {@code chian:} for {@code chain:} was reported as "models.smart:
   * chain needs at least one target" — Jackson builds a record (which refuses the value the typo left
   * unset) before it reports the keys it did not know — so the typo itself went unnamed.
   */
  @Test
  void aMisspelledKeyIsNamedNotTheValueItLeftUnset() {
    assertThatThrownBy(() -> parse("upstreams: { a: { url: https://x } }\nmodels:\n  smart:\n    chian: [a/m]\n"))
        .hasMessageStartingWith("levee.yaml: line 4, column 5: models.smart.chian: unknown key 'chian' (known: chain,");
    assertThatThrownBy(() -> parse("upstreams:\n  a:\n    ulr: https://x\n"))
        .hasMessageStartingWith("levee.yaml: line 3, column 5: upstreams.a.ulr: unknown key 'ulr' (known: ");
  }

  @Test
  void aMissingKeyIsStillReportedAtItsSection() {
    assertThatThrownBy(() -> parse("upstreams:\n  a:\n    api-key: x\n"))
        .hasMessage("levee.yaml: line 2, column 3: upstreams.a: url is required");
  }

  @Test
  void aSyntaxErrorKeepsWhatTheParserFoundInOneLine() {
    assertThatThrownBy(() -> parse("upstreams:\n  a: \"unclosed\n"))
        .hasMessageContaining("line 3, column 1: not valid YAML: while scanning a quoted scalar (line 2, column 6): "
            + "found unexpected end of stream")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    assertThatThrownBy(() -> parse("upstreams:\n  a:\n    url: https://x\n   bad: 1\n"))
        .hasMessageContaining("line 4, column 4: not valid YAML: while parsing a block mapping (line 2, column 3): "
            + "expected <block end>, but found '<block mapping start>'")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }
}
