package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (tester, faithful emulator): the dated snapshot IDs of the models the emulator lists
 * ({@code claude-haiku-4-5-20251001}, {@code claude-sonnet-4-5-20250929}) and Claude Opus 4.5
 * ({@code claude-opus-4-5}, {@code claude-opus-4-5-20251101}) got 404 {@code not_found_error},
 * where the API answers them. IDs from Anthropic's models overview and each model's page.
 */
class DatedModelIdsRegressionTest {

  private static final String BODY =
      "{\"model\":\"%s\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  private static final String COUNT = "{\"model\":\"%s\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  @ParameterizedTest
  @ValueSource(strings = {"claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929", "claude-opus-4-5",
      "claude-opus-4-5-20251101", "claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-6", "claude-sonnet-4-6"})
  void aFaithfulEmulatorAnswersTheAliasAndTheSnapshotId(String model) throws Exception {
    try (Emulator emulator = Emulator.start(EmulatorOptions.builder().faithful(true)
        .timeToFirstToken(Duration.ZERO).deltaDelay(Duration.ZERO).build())) {
      Wire wire = new Wire(emulator);

      HttpResponse<String> message = wire.post("/v1/messages", BODY.formatted(model));
      HttpResponse<String> count = wire.post("/v1/messages/count_tokens", COUNT.formatted(model));

      assertThat(message.statusCode()).as(message.body()).isEqualTo(200);
      assertThat(Json.tryParse(message.body()).path("model").asText()).as("the name as requested").isEqualTo(model);
      assertThat(count.statusCode()).as(count.body()).isEqualTo(200);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"claude-haiku-4-5-20251001", "claude-opus-4-5"})
  void theModelEndpointAnswersThemToo(String model) throws Exception {
    try (Emulator emulator = Emulator.start(EmulatorOptions.defaults())) {
      HttpResponse<String> one = new Wire(emulator).get("/v1/models/" + model);

      assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
      JsonNode body = Json.tryParse(one.body());
      assertThat(body.path("type").asText()).isEqualTo("model");
      assertThat(List.of(model, model.replaceFirst("-\\d{8}$", ""))).contains(body.path("id").asText());
    }
  }
}
