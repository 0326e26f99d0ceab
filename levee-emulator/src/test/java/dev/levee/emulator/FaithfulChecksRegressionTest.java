package dev.levee.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.client.AnthropicClient;
import com.anthropic.models.messages.Message;
import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12 review): the emulator answered a request without {@code
 * anthropic-version} and a model name nobody serves ({@code claude-sonet-4-5}) with 200, where the
 * API answers 400 {@code invalid_request_error} "anthropic-version: header is required" and 404
 * {@code not_found_error} "model: claude-sonet-4-5". A faithful emulator ({@code levee emulator}'s
 * default) now does the same; it knows its listed models, the {@code emu-*} fault names, the
 * names its scenario gives and the names it is told. Embedded in tests (the default options) it
 * still answers any name: Levee's tests name their targets freely.
 */
class FaithfulChecksRegressionTest {

  private static final String BODY = "{\"model\":\"%s\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  private static final String COUNT_BODY = "{\"model\":\"%s\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  private static EmulatorOptions faithful() {
    Scenario scenario = Scenario.builder().phase(Scenario.Phase.builder().model("incident-*").status(200).build()).build();
    return EmulatorOptions.builder().faithful(true).models(List.of("claude-main")).scenario(scenario).build();
  }

  @Test
  void aRequestWithoutAnthropicVersionGetsTheApis400() throws Exception {
    try (Emulator emulator = Emulator.start(faithful())) {
      HttpRequest request = new Wire(emulator).request("/v1/messages", BODY.formatted("claude-opus-4-6"))
          .setHeader("anthropic-version", "").build();
      HttpResponse<String> answer = Wire.HTTP_CLIENT.send(request, HttpResponse.BodyHandlers.ofString());

      assertThat(answer.statusCode()).isEqualTo(400);
      JsonNode error = Json.tryParse(answer.body());
      assertThat(error.at("/error/type").asText()).isEqualTo("invalid_request_error");
      assertThat(error.at("/error/message").asText()).isEqualTo("anthropic-version: header is required");
    }
  }

  /** Regression (session 22's newcomer trial): {@code anthropic-version: banana} was served. */
  @Test
  void aVersionTheApiDoesNotHaveGetsTheApis400() throws Exception {
    try (Emulator emulator = Emulator.start(faithful())) {
      Wire wire = new Wire(emulator);
      for (String version : List.of("banana", "2023-06-01, 2023-06-01")) {
        HttpRequest request = wire.request("/v1/messages", BODY.formatted("claude-opus-4-6"))
            .setHeader("anthropic-version", version).build();
        HttpResponse<String> answer = Wire.HTTP_CLIENT.send(request, HttpResponse.BodyHandlers.ofString());

        assertThat(answer.statusCode()).as(version).isEqualTo(400);
        JsonNode error = Json.tryParse(answer.body());
        assertThat(error.at("/error/type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.at("/error/message").asText())
            .isEqualTo("anthropic-version: \"" + version + "\" is not a valid version");
      }
      for (String version : List.of("2023-06-01", "2023-01-01")) {
        HttpRequest request = wire.request("/v1/messages", BODY.formatted("claude-opus-4-6"))
            .setHeader("anthropic-version", version).build();
        assertThat(Wire.HTTP_CLIENT.send(request, HttpResponse.BodyHandlers.ofString()).statusCode()).as(version)
            .isEqualTo(200);
      }
    }
  }

  /**
   * Regression (session 25's newcomer trial): the official Java SDK the project pins (3.14) sends
   * {@code anthropic-version: 2026-10-21}, which {@code levee emulator} refused with 400, so the
   * README's SDK example failed against the README's emulator.
   */
  @Test
  void theOfficialSdkIsAnsweredByAFaithfulEmulator() throws Exception {
    try (Emulator emulator = Emulator.start(faithful())) {
      AnthropicClient client = Sdk.client(emulator);

      Message answered = client.messages().create(Sdk.params("claude-opus-4-6", "hi"));
      Message streamed = Sdk.streamed(client, Sdk.params("claude-opus-4-6", "hi"));

      assertThat(Sdk.text(answered)).isNotEmpty();
      assertThat(Sdk.text(streamed)).isNotEmpty();
    }
  }

  @Test
  void anUnknownModelGetsTheApis404AndAKnownOneAnAnswer() throws Exception {
    try (Emulator emulator = Emulator.start(faithful())) {
      Wire wire = new Wire(emulator);
      for (String path : List.of("/v1/messages", "/v1/messages/count_tokens")) {
        String body = path.endsWith("count_tokens") ? COUNT_BODY : BODY; // count_tokens refuses max_tokens
        HttpResponse<String> unknown = wire.post(path, body.formatted("claude-sonet-4-5"));

        assertThat(unknown.statusCode()).as(path).isEqualTo(404);
        JsonNode error = Json.tryParse(unknown.body());
        assertThat(error.at("/error/type").asText()).as(path).isEqualTo("not_found_error");
        assertThat(error.at("/error/message").asText()).as(path).isEqualTo("model: claude-sonet-4-5");
      }
      for (String known : List.of("claude-opus-4-6", "claude-haiku-4-5", "emu-ok", "claude-main", "incident-a")) {
        assertThat(wire.post("/v1/messages", BODY.formatted(known)).statusCode()).as(known).isEqualTo(200);
      }
      assertThat(wire.post("/v1/messages", BODY.formatted("emu-529")).statusCode()).as("a fault's name").isEqualTo(529);
    }
  }

  @Test
  void embeddedWithDefaultOptionsItAnswersAnyNameAndNoVersion() throws Exception {
    try (Emulator emulator = Emulator.start(EmulatorOptions.defaults())) {
      HttpRequest request = new Wire(emulator).request("/v1/messages", BODY.formatted("claude-big"))
          .setHeader("anthropic-version", "").build();

      assertThat(Wire.HTTP_CLIENT.send(request, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }
  }
}
