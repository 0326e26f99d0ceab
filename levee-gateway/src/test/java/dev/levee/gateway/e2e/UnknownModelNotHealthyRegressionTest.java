package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.emulator.EmulatorOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): after one request for a model no alias names ({@code
 * "model":"no-such-model"}, passed to the default upstream, which answered 404 {@code
 * not_found_error}), {@code /health} listed {@code emu/no-such-model} as {@code "health":"healthy"}
 * with {@code "calls":0}, while a configured target with no call read {@code unknown}: any client
 * could add "healthy" targets to {@code /health}. A client error says nothing of the target: a
 * target that only ever answered client errors has no call recorded, reads {@code unknown} when
 * configured, and is not listed when a client named it.
 */
class UnknownModelNotHealthyRegressionTest {

  private static final String CONFIG = """
      models:
        ok: { chain: [emu/claude-3-haiku] }
        gone: { chain: [emu/claude-gone] }   # a model the upstream does not know
      """ + Harness.BASE_POLICY;

  @Test
  void aNameOnlyClientErrorsAnsweredIsNeitherListedNorHealthy() throws Exception {
    EmulatorOptions options = EmulatorOptions.builder().faithful(true).models(List.of("my-own-model"))
        .timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO).build();
    try (Harness h = Harness.start(options, CONFIG)) {
      assertThat(send(h, "no-such-model").statusCode()).isEqualTo(404);
      assertThat(send(h, "gone").statusCode()).isEqualTo(404);
      assertThat(send(h, "my-own-model").statusCode()).isEqualTo(200);

      JsonNode health = Json.MAPPER.readTree(h.get("/health").body());
      JsonNode targets = health.get("targets");

      assertThat(targets.has("emu/no-such-model")).as("a name only a 404 answered: %s", targets).isFalse();
      assertThat(targets.at("/emu~1claude-3-haiku/health").asText()).as("configured, never called").isEqualTo("unknown");
      JsonNode gone = targets.get("emu/claude-gone");
      assertThat(gone.get("calls").asLong()).isZero();
      assertThat(gone.get("health").asText()).as("configured, only a client error: %s", gone).isEqualTo("unknown");
      JsonNode own = targets.get("emu/my-own-model");
      assertThat(own).as("a pass-through target that carried a call is listed: %s", targets).isNotNull();
      assertThat(own.get("configured").asBoolean()).isFalse();
      assertThat(own.get("health").asText()).isEqualTo("healthy");
      assertThat(own.get("calls").asLong()).isEqualTo(1);
      assertThat(health.at("/client_named/targets").asInt()).isEqualTo(1);
      assertThat(health.get("unknown_targets").asInt()).isEqualTo(2);
      assertThat(health.get("status").asText()).isEqualTo("healthy");
    }
  }

  private static java.net.http.HttpResponse<String> send(Harness h, String model) throws Exception {
    return h.post("/v1/messages", "{\"model\":\"" + model
        + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", Map.of("x-api-key", "sk-test"));
  }
}
