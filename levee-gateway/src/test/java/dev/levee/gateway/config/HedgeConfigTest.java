package dev.levee.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.chain.HedgePolicy;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code models.<alias>.hedge}: off by default, a duration or {@code p95}, anything else refused with its line. */
class HedgeConfigTest {

  private static GatewayConfig parse(String hedge) throws ConfigException {
    String yaml = """
        upstreams:
          a: { url: "https://api.anthropic.com" }
        models:
          smart:
            chain: [a/claude-big, a/claude-small]
        """ + hedge;
    return new ConfigLoader(Map.<String, String>of()::get).parse(yaml, "levee.yaml");
  }

  @Test
  void anAliasDoesNotHedgeUnlessItSaysSo() throws ConfigException {
    assertThat(parse("").models().get("smart").hedge()).isNull();
  }

  @Test
  void aFixedDelayIsADuration() throws ConfigException {
    HedgePolicy policy = parse("    hedge: { after: 500ms }\n").models().get("smart").hedge().policy();

    assertThat(policy).isEqualTo(HedgePolicy.after(Duration.ofMillis(500)));
  }

  @Test
  void p95NamesTheMeasuredPercentile() throws ConfigException {
    assertThat(parse("    hedge: { after: p95 }\n").models().get("smart").hedge().policy()).isEqualTo(HedgePolicy.atP95());
  }

  @Test
  void anythingElseIsRefusedWithTheKeyAndLine() {
    assertThatThrownBy(() -> parse("    hedge: { after: soon }\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("line 6")
        .hasMessageContaining("hedge")
        .hasMessageContaining("a duration (500ms, 2s) or p95, was 'soon'");
  }

  @Test
  void theExampleConfigHedgesAtP95() throws ConfigException {
    GatewayConfig example = new ConfigLoader(name -> name.equals("ANTHROPIC_API_KEY") ? "sk-example" : null)
        .load(java.nio.file.Path.of("../examples/levee.yaml"));

    assertThat(example.models().get("smart").hedge().policy()).isEqualTo(HedgePolicy.atP95());
  }

  @Test
  void afterIsRequired() {
    assertThatThrownBy(() -> parse("    hedge: {}\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("after is required");
  }
}
