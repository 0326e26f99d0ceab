package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An operator's trial (session 20): after hundreds of model names clients chose themselves, one
 * more name's circuit opened and {@code /health} did not show it — the client-named targets listed
 * were the first 50 in the breakers' map order, {@code client_named.not_closed} counted only those,
 * and {@code client_named.targets} was capped at 50, so it never said how many there were. Now the
 * listed 50 are those whose circuit is not CLOSED first, and both counts are over every
 * client-named target with evidence; {@code listed} says how many are shown.
 */
class ClientNamedOpenCircuitShownRegressionTest {

  @Test
  void anOpenClientNamedCircuitIsListedAndCountedPastTheFirstFifty() throws Exception {
    try (Harness h = Harness.start("models:\n  ok: { chain: [emu/emu-ok] }\n" + Harness.BASE_POLICY)) {
      for (int i = 0; i < 60; i++) {
        assertThat(ask(h, "someones-name-" + i)).isEqualTo(200);
      }
      for (int i = 0; i < 3; i++) {
        ask(h, "emu-529-always");
      }

      JsonNode health = Json.MAPPER.readTree(h.get("/health").body());

      assertThat(health.at("/targets/emu~1emu-529-always/circuit").asText()).as("listed: %s", health.get("targets"))
          .isEqualTo("OPEN");
      assertThat(health.at("/client_named/targets").asInt()).as("every one with evidence").isEqualTo(61);
      assertThat(health.at("/client_named/not_closed").asInt()).isEqualTo(1);
      assertThat(health.at("/client_named/listed").asInt()).isEqualTo(50);
      assertThat(health.get("status").asText()).as("client-named names never move it").isEqualTo("healthy");
    }
  }

  private static int ask(Harness h, String model) throws Exception {
    return h.post("/v1/messages", "{\"model\":\"" + model
        + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", Map.of("x-api-key", "sk-test"))
        .statusCode();
  }
}
