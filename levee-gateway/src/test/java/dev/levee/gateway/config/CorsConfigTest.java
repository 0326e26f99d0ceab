package dev.levee.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code server.cors}: any origin by default, as the Anthropic API; off by default when Levee holds the upstream's key. */
class CorsConfigTest {

  private static GatewayConfig parse(String yaml) throws Exception {
    return new ConfigLoader(Map.<String, String>of()::get).parse(yaml, "test.yaml");
  }

  private static final String MODELS = "models:\n  chat:\n    chain: [emu/claude-big]\n";

  @Test
  void anyOriginByDefaultWhenClientsBringTheirOwnKeys() throws Exception {
    Cors cors = parse("upstreams:\n  emu: { url: \"http://127.0.0.1:9\" }\n" + MODELS).cors();

    assertThat(cors.anyOrigin()).isTrue();
    assertThat(cors.allows("https://anything.example")).isTrue();
    assertThat(cors.allows(null)).isFalse();
  }

  @Test
  void offByDefaultWhenAnUpstreamHasItsOwnKeyUnlessOriginsAreListed() throws Exception {
    String upstream = "upstreams:\n  emu: { url: \"http://127.0.0.1:9\", api-key: sk-ant-operator }\n";

    assertThat(parse(upstream + MODELS).cors()).isEqualTo(Cors.OFF);
    Cors listed = parse("server: { cors: [\"https://app.example.com\", \"http://localhost:5173\"] }\n" + upstream + MODELS).cors();
    assertThat(listed.allows("https://app.example.com")).isTrue();
    assertThat(listed.allows("http://localhost:5173")).isTrue();
    assertThat(listed.allows("https://evil.example")).isFalse();
    assertThat(parse("server: { cors: \"*\" }\n" + upstream + MODELS).cors().anyOrigin()).isTrue();
  }

  @Test
  void offAndBadOriginsAreReadAsWritten() throws Exception {
    String upstream = "upstreams:\n  emu: { url: \"http://127.0.0.1:9\" }\n";
    assertThat(parse("server: { cors: off }\n" + upstream + MODELS).cors()).isEqualTo(Cors.OFF);
    assertThatThrownBy(() -> parse("server: { cors: [\"https://app.example.com/page\"] }\n" + upstream + MODELS))
        .isInstanceOf(ConfigException.class).hasMessageContaining("server.cors")
        .hasMessageContaining("is not an origin: write scheme://host[:port]");
    assertThat(new Cors(true, List.of("https://App.Example.com")).allows("https://app.example.COM")).isTrue();
  }
}
