package dev.levee.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.breaker.CircuitBreakerConfig;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigLoaderTest {

  /** The example from the issue, exactly as a user would write it. */
  private static final String EXAMPLE = """
      server:
        port: 8080
      upstreams:
        anthropic:
          url: https://api.anthropic.com
          api-key: ${ANTHROPIC_API_KEY:-}   # empty: forward the client's own x-api-key
      models:
        smart:                              # what the client sends as "model"
          chain: [anthropic/claude-opus-4-6, anthropic/claude-sonnet-4-6]
      policy:
        deadline: 30s
        attempt-timeout: 20s
        retry: { max-retries: 2, base-delay: 500ms, max-delay: 8s }
        breaker: default
        retry-budget: { max: 500, ratio: 0.25 }
      """;

  private static GatewayConfig parse(String yaml, Map<String, String> env) throws ConfigException {
    return new ConfigLoader(env::get).parse(yaml, "levee.yaml");
  }

  @Test
  void theIssuesExampleLoadsAsWritten() throws ConfigException {
    GatewayConfig config = parse(EXAMPLE, Map.of());

    assertThat(config.server().port()).isEqualTo(8080);
    assertThat(config.upstreams().get("anthropic").url()).isEqualTo(URI.create("https://api.anthropic.com"));
    assertThat(config.upstreams().get("anthropic").apiKey()).isEmpty();
    assertThat(config.models().get("smart").chain()).extracting(GatewayConfig.TargetRef::model)
        .containsExactly("claude-opus-4-6", "claude-sonnet-4-6");
    assertThat(config.policy().deadline()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.policy().retry().baseDelay()).isEqualTo(Duration.ofMillis(500));
    assertThat(config.policy().breaker().config()).isEqualTo(CircuitBreakerConfig.DEFAULT);
    assertThat(config.policy().retryBudget().ratio()).isEqualTo(0.25);
  }

  @Test
  void variablesAreSubstitutedInValues() throws ConfigException {
    GatewayConfig config = parse(EXAMPLE, Map.of("ANTHROPIC_API_KEY", "sk-test"));
    assertThat(config.upstreams().get("anthropic").apiKey()).isEqualTo("sk-test");
  }

  @Test
  void variablesWorkInNumbersAndDurationsToo() throws ConfigException {
    String yaml = """
        server: { port: "${PORT:-9999}" }
        upstreams: { a: { url: "http://127.0.0.1:${EMU_PORT}" } }
        policy: { deadline: "${DEADLINE:-5s}" }
        """;
    GatewayConfig config = parse(yaml, Map.of("EMU_PORT", "9010"));
    assertThat(config.server().port()).isEqualTo(9999);
    assertThat(config.upstreams().get("a").url().getPort()).isEqualTo(9010);
    assertThat(config.policy().deadline()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void aVariableWithoutDefaultMustBeSet() {
    String yaml = "upstreams:\n  a:\n    url: https://x\n    api-key: ${MISSING_KEY}\n";
    assertThatThrownBy(() -> parse(yaml, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("line 4")
        .hasMessageContaining("MISSING_KEY");
  }

  @Test
  void anUnknownKeyIsNamedWithItsLine() {
    String yaml = EXAMPLE.replace("  deadline: 30s", "  deadlin: 30s");
    assertThatThrownBy(() -> parse(yaml, Map.of()))
        .hasMessageContaining("line 11")
        .hasMessageContaining("unknown key 'deadlin'")
        .hasMessageContaining("deadline");
  }

  @Test
  void aBadDurationNamesTheKeyAndLine() {
    String yaml = EXAMPLE.replace("attempt-timeout: 20s", "attempt-timeout: 20 parsecs");
    assertThatThrownBy(() -> parse(yaml, Map.of()))
        .hasMessageContaining("line 12")
        .hasMessageContaining("attempt-timeout")
        .hasMessageContaining("20 parsecs");
  }

  @Test
  void aBadNumberNamesTheKeyAndLine() {
    String yaml = EXAMPLE.replace("max-retries: 2", "max-retries: two");
    assertThatThrownBy(() -> parse(yaml, Map.of()))
        .hasMessageContaining("line 13")
        .hasMessageContaining("max-retries");
  }

  @Test
  void aChainTargetOnAnUnknownUpstreamNamesTheLine() {
    String yaml = EXAMPLE.replace("anthropic/claude-sonnet-4-6", "bedrock/claude-sonnet-4-6");
    assertThatThrownBy(() -> parse(yaml, Map.of()))
        .hasMessageContaining("line 9")
        .hasMessageContaining("models.smart.chain[1]")
        .hasMessageContaining("unknown upstream 'bedrock'");
  }

  /**
   * An operator's trial (session 20): a chain naming one target twice started without a word, and
   * each request then called that target twice in a row, a retry outside the retry policy's budget
   * and backoff. It is refused, naming both places.
   */
  @Test
  void aChainNamingOneTargetTwiceIsRefused() {
    String yaml = EXAMPLE.replace("anthropic/claude-sonnet-4-6]", "anthropic/claude-opus-4-6]");
    assertThatThrownBy(() -> parse(yaml, Map.of()))
        .hasMessageContaining("line 9")
        .hasMessageContaining("models.smart.chain[1]")
        .hasMessageContaining("anthropic/claude-opus-4-6 is chain[0] already");
  }

  @Test
  void anUnknownBreakerProfileIsRefused() {
    String yaml = EXAMPLE.replace("breaker: default", "breaker: sturdy");
    assertThatThrownBy(() -> parse(yaml, Map.of()))
        .hasMessageContaining("line 14")
        .hasMessageContaining("sturdy");
  }

  @Test
  void aBreakerCanBeSpelledOut() throws ConfigException {
    String yaml = EXAMPLE.replace("breaker: default",
        "breaker: { profile: batch, failures: 4, half-open-trials: 2 }");
    CircuitBreakerConfig breaker = parse(yaml, Map.of()).policy().breaker().config();
    assertThat(breaker).isEqualTo(new CircuitBreakerConfig(4, Duration.ofSeconds(60), Duration.ofSeconds(120), 2, 2));
  }

  @Test
  void aBreakersFailureRateIsAShare() throws ConfigException {
    String yaml = EXAMPLE.replace("breaker: default", "breaker: { failure-rate: 0.25 }");
    assertThat(parse(yaml, Map.of()).policy().breaker().config().failureRate()).isEqualTo(0.25);
    assertThat(parse(EXAMPLE, Map.of()).policy().breaker().config().failureRate()).isEqualTo(0.1);
    assertThatThrownBy(() -> parse(EXAMPLE.replace("breaker: default", "breaker: { failure-rate: 50 }"), Map.of()))
        .hasMessageContaining("failure-rate must be a share in (0, 1]");
  }

  @Test
  void breakersCanBeSwitchedOff() throws ConfigException {
    assertThat(parse(EXAMPLE.replace("breaker: default", "breaker: off"), Map.of()).policy().breaker().enabled()).isFalse();
  }

  @Test
  void anUpstreamNeedsAUrl() {
    assertThatThrownBy(() -> parse("upstreams:\n  a:\n    api-key: x\n", Map.of()))
        .hasMessageContaining("url is required")
        .hasMessageContaining("line");
  }

  @Test
  void atLeastOneUpstreamIsRequired() {
    assertThatThrownBy(() -> parse("server: { port: 1 }\n", Map.of())).hasMessageContaining("upstreams");
  }

  @Test
  void invalidYamlIsReportedWithItsLine() {
    assertThatThrownBy(() -> parse("upstreams:\n  a: \"unclosed\n", Map.of()))
        .hasMessageContaining("not valid YAML");
  }

  @Test
  void theWrongShapeIsNamedInYamlTerms() {
    assertThatThrownBy(() -> parse("upstreams:\n  a:\n    url: https://x\nmodels:\n  s: { chain: oops }\n", Map.of()))
        .hasMessageContaining("line 5, column 15: models.s.chain: expected a list, got a single value");
    assertThatThrownBy(() -> parse("upstreams:\n  a: [1, 2]\n", Map.of()))
        .hasMessageContaining("line 2, column 3: upstreams.a: expected a mapping, got a list");
  }

  @Test
  void aKeyWrittenTwiceIsRefused() {
    assertThatThrownBy(() -> parse("server:\n  port: 1\n  port: 2\nupstreams: { a: { url: https://x } }\n", Map.of()))
        .hasMessageContaining("port");
  }

  @Test
  void anEmptyFileIsRefusedInWords() {
    assertThatThrownBy(() -> parse("# nothing yet\n\n", Map.of())).hasMessageContaining("the file is empty");
  }

  @Test
  void defaultsApplyWhenSectionsAreLeftOut() throws ConfigException {
    GatewayConfig config = parse("upstreams: { a: { url: https://x.example } }", Map.of());
    assertThat(config.server().host()).isEqualTo("127.0.0.1");
    assertThat(config.server().maxBody()).isEqualTo(32L << 20);
    assertThat(config.policy().attemptTimeout()).isEqualTo(Duration.ofSeconds(20));
    assertThat(config.policy().retry().maxRetries()).isEqualTo(2);
    assertThat(config.policy().breaker().enabled()).isTrue();
  }

  @Test
  void theApiKeyNeverShowsInToString() throws ConfigException {
    GatewayConfig config = parse(EXAMPLE, Map.of("ANTHROPIC_API_KEY", "sk-secret-123"));
    assertThat(config.toString()).doesNotContain("sk-secret-123");
  }
}
