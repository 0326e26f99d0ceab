package dev.levee.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.route.Preference;
import dev.levee.core.route.TaskType;
import dev.levee.gateway.AliasChain;
import dev.levee.gateway.Aliases;
import dev.levee.gateway.route.RouteDefaults;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Issue 13: {@code route: score}, {@code route-defaults} and the {@code routing:} section, with errors naming key, line and allowed values. */
class RoutingConfigTest {

  private static final String UPSTREAM = "upstreams:\n  a:\n    url: https://api.example.com\n";

  private static GatewayConfig parse(String yaml) throws ConfigException {
    return new ConfigLoader(name -> null).parse(UPSTREAM + yaml, "levee.yaml");
  }

  @Test
  void anAliasRoutedByScoreTakesItsDefaultsAndTheRoutingSection() throws ConfigException {
    GatewayConfig config = parse("""
        models:
          smart:
            chain: [a/claude-opus-4-6, a/claude-sonnet-4-6]
            route: score
            route-defaults: { task: code, latency-budget: 1500ms, prefer: cost }
          fixed:
            chain: [a/claude-haiku-4-5]
        routing:
          half-life: 2m
          prices:
            claude-opus-4-6: { input: 15, output: 75 }
          task-fit:
            opus: { simple: 0.1, complex: 1, creative: 1, code: 1 }
          typical-latency:
            claude-opus-4-6: 3s
        """);

    GatewayConfig.Alias smart = config.models().get("smart");
    assertThat(smart.route()).isEqualTo(RouteMode.SCORE);
    assertThat(smart.routeDefaults()).isEqualTo(new RouteDefaults("code", Duration.ofMillis(1500), "cost"));
    assertThat(config.models().get("fixed").route()).isEqualTo(RouteMode.CHAIN);
    assertThat(config.routing().halfLife()).isEqualTo(Duration.ofMinutes(2));
    assertThat(config.routing().priceTable().priceOf("claude-opus-4-6").orElseThrow().inputCost(1000)).isEqualTo(0.015);
    assertThat(config.routing().taskFitMatrix().fit("claude-opus-4-6", TaskType.SIMPLE)).isEqualTo(0.1);
    assertThat(config.routing().statisticsConfig().typicalLatencyOf("claude-opus-4-6")).isEqualTo(Duration.ofSeconds(3));

    Aliases aliases = new Aliases(config);
    AliasChain routed = aliases.resolve("smart");
    assertThat(routed.routed()).isTrue();
    assertThat(routed.routing().preference()).isEqualTo(Preference.COST);
    assertThat(aliases.resolve("fixed").routed()).isFalse();
    assertThat(aliases.resolve("claude-other").routed()).as("a pass-through model name is never routed").isFalse();
  }

  @Test
  void withoutARoutingSectionTheRouterDefaultsApply() throws ConfigException {
    GatewayConfig config = parse("models:\n  smart:\n    chain: [a/claude-sonnet-4-6]\n    route: score\n");

    assertThat(config.routing().halfLife()).isEqualTo(Duration.ofMinutes(10));
    assertThat(config.models().get("smart").routeDefaults()).isEqualTo(RouteDefaults.DEFAULT);
  }

  @Test
  void badValuesNameTheKeyTheLineAndTheAllowedValues() {
    assertThatThrownBy(() -> parse("models:\n  smart:\n    chain: [a/m]\n    route: smart\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("line 7")
        .hasMessageContaining("models.smart.route")
        .hasMessageContaining("must be one of chain, score, was 'smart'");
    assertThatThrownBy(() -> parse("models:\n  smart:\n    chain: [a/m]\n    route-defaults: { task: poetry }\n"))
        .hasMessageContaining("models.smart.route-defaults")
        .hasMessageContaining("task must be simple, complex, creative or code, was 'poetry'");
    assertThatThrownBy(() -> parse("models:\n  smart:\n    chain: [a/m]\n    route-defaults: { prefer: cheap }\n"))
        .hasMessageContaining("prefer must be cost, balanced or quality, was 'cheap'");
    assertThatThrownBy(() -> parse("models:\n  smart:\n    chain: [a/m]\n    route-defaults: { budget: 1s }\n"))
        .hasMessageContaining("unknown key 'budget'")
        .hasMessageContaining("latency-budget");
    assertThatThrownBy(() -> parse("routing:\n  task-fit:\n    opus: { poetry: 1 }\n"))
        .hasMessageContaining("routing")
        .hasMessageContaining("'poetry' is not a task (simple, complex, creative, code)");
    assertThatThrownBy(() -> parse("routing:\n  task-fit:\n    opus: { code: 1.5 }\n"))
        .hasMessageContaining("must be within 0..1, was 1.5");
    assertThatThrownBy(() -> parse("routing:\n  prices:\n    claude-x: { input: 3 }\n"))
        .hasMessageContaining("a price needs input and output, in dollars per million tokens");
    assertThatThrownBy(() -> parse("routing:\n  half-life: 0s\n"))
        .hasMessageContaining("half-life must be positive");
    assertThatThrownBy(() -> parse("routing:\n  typical-latency:\n    m: soon\n"))
        .hasMessageContaining("routing.typical-latency.m");
    assertThatThrownBy(() -> parse("routing:\n  halflife: 1m\n"))
        .hasMessageContaining("unknown key 'halflife'")
        .hasMessageContaining("half-life");
  }
}
