package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * {@code /health} said {@code degraded} (200) in a total outage of the one alias in use, because
 * the other configured aliases — never called — had CLOSED circuits, which counted as healthy. A
 * target never called is unknown: with every called target's circuit OPEN the gateway is {@code
 * unhealthy} (503), and {@code unknown_targets} says how many were left out.
 */
class OutageOfTheOnlyAliasInUseIsUnhealthyRegressionTest {

  @Test
  void everyCalledTargetOpenIsUnhealthyWhateverTheUncalledAliases() throws Exception {
    String config = """
        models:
          down: { chain: [emu/emu-503] }
          spare: { chain: [emu/claude-a] }
          other: { chain: [emu/claude-b] }
        policy:
          retry: { max-retries: 0 }
          breaker: { failures: 1, open-for: 60s }
        """;
    try (Harness h = Harness.start(config)) {
      JsonNode before = Json.tryParse(h.get("/health").body());
      assertThatThrownBy(() -> h.sdk.messages().create(Harness.params("down", "x"))).isNotNull();

      HttpResponse<String> health = h.get("/health");
      JsonNode after = Json.tryParse(health.body());

      assertThat(before.path("status").asText()).as("nothing called yet").isEqualTo("healthy");
      assertThat(after.path("status").asText()).as(after.toString()).isEqualTo("unhealthy");
      assertThat(health.statusCode()).isEqualTo(503);
      assertThat(after.path("unknown_targets").asInt()).isEqualTo(2);
      assertThat(after.at("/targets/emu~1claude-a/health").asText()).isEqualTo("unknown");
    }
  }
}
