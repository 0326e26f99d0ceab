package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code /health} listed a feature's aliases by name, so the names clients chose (their shared
 * {@code *} scope, or one below T0 such as {@code aaa-…}) came before the configured aliases; and a target only JSON requests used showed {@code "p99_ms":
 * 0}, as if its first tokens came at once. Configured aliases come first now, in config order, then
 * the names clients chose; a target without latency samples shows {@code null}.
 */
class HealthListsConfiguredAliasesFirstRegressionTest {

  private static final String CONFIG = """
      models:
        zeta: { chain: [emu/claude-z] }
        alpha: { chain: [emu/claude-a] }
      """ + Harness.BASE_POLICY;

  @Test
  void configuredAliasesComeFirstInConfigOrder() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      JsonNode health = answerThreeModels(h);
      List<String> aliases = new ArrayList<>();
      for (JsonNode feature : health.get("tiers")) {
        if (feature.get("feature").asText().equals("default")) {
          feature.get("aliases").forEach(a -> aliases.add(a.get("alias").asText()));
        }
      }

      assertThat(aliases).as(health.get("tiers").toString()).startsWith("zeta", "alpha");
    }
  }

  @Test
  void aTargetOnlyJsonRequestsUsedHasNoP99() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      JsonNode zeta = answerThreeModels(h).at("/target_health/emu~1claude-z");

      assertThat(zeta.get("calls").asLong()).isEqualTo(1);
      assertThat(zeta.get("p99_ms").isNull()).as(zeta.toString()).isTrue();
    }
  }

  /** One JSON request each for a client-chosen name and both aliases; then {@code /health}. */
  private static JsonNode answerThreeModels(Harness h) throws Exception {
    for (String model : List.of("aaa-client-model", "alpha", "zeta")) {
      h.sdk.messages().create(Harness.params(model, "hello " + model));
    }
    return Json.tryParse(h.get("/health").body());
  }
}
