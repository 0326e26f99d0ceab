package dev.levee.gateway.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.levee.core.route.ModelPrice;
import dev.levee.core.route.TaskType;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The routing section of the config and the core values it builds. */
class RoutingSettingsTest {

  @Test
  void nothingConfiguredIsTheDocumentedDefaults() {
    RoutingSettings settings = RoutingSettings.DEFAULT;

    assertThat(settings.priceTable().priceOf("claude-sonnet-4-6")).contains(ModelPrice.perMillion(3, 15));
    assertThat(settings.taskFitMatrix().fit("claude-haiku-4-5", TaskType.SIMPLE)).isEqualTo(1.0);
    assertThat(settings.statisticsConfig().halfLife()).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void configuredValuesExtendAndReplaceTheDefaults() {
    RoutingSettings settings = new RoutingSettings(Duration.ofMinutes(2),
        Map.of("claude-opus-4-6", new RoutingSettings.Price(15.0, 75.0)),
        Map.of("Opus", Map.of("simple", 0.9), "my-model", Map.of("code", 0.7)),
        Map.of("claude-opus-4-6", Duration.ofSeconds(3)));

    assertThat(settings.priceTable().priceOf("claude-opus-4-6").orElseThrow().inputPer1k()).isEqualTo(0.015);
    assertThat(settings.priceTable().priceOf("claude-haiku-4-5")).isPresent();
    assertThat(settings.taskFitMatrix().fit("claude-opus-4-6", TaskType.SIMPLE)).isEqualTo(0.9);
    assertThat(settings.taskFitMatrix().fit("claude-opus-4-6", TaskType.CODE)).isEqualTo(0.5); // row replaced
    assertThat(settings.taskFitMatrix().fit("my-model", TaskType.CODE)).isEqualTo(0.7);
    assertThat(settings.statisticsConfig().halfLife()).isEqualTo(Duration.ofMinutes(2));
    assertThat(settings.statisticsConfig().typicalLatencyOf("claude-opus-4-6")).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void badValuesAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> new RoutingSettings(Duration.ZERO, null, null, null)).hasMessageContaining("half-life");
    assertThatThrownBy(() -> new RoutingSettings(null, null, Map.of("opus", Map.of("poetry", 0.5)), null))
        .hasMessageContaining("'poetry' is not a task");
    assertThatThrownBy(() -> new RoutingSettings(null, null, Map.of("opus", Map.of("code", 2.0)), null))
        .hasMessageContaining("within 0..1");
    assertThatThrownBy(() -> new RoutingSettings.Price(-1.0, 5.0)).hasMessageContaining(">= 0");
    assertThatThrownBy(() -> new RoutingSettings.Price(1.0, null)).hasMessageContaining("input and output");
    assertThatThrownBy(() -> new RoutingSettings(null, null, null, Map.of("m", Duration.ZERO)))
        .hasMessageContaining("typical-latency of m");
    assertThatThrownBy(() -> new RouteDefaults("poetry", null, null)).hasMessageContaining("task must be");
    assertThatThrownBy(() -> new RouteDefaults(null, null, "fast")).hasMessageContaining("prefer must be");
  }
}
