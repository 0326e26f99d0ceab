package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.models.models.ModelInfo;
import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * Regression (newcomer trial): {@code GET /v1/models/<alias>} was relayed to the upstream, which
 * knows no alias, and answered 404, though {@code POST /v1/messages} takes the alias as its model.
 * A configured alias now gets a model object of the Models API's shape (the official SDK's {@code
 * models().retrieve} reads it); an unknown id still gets the upstream's 404 {@code not_found_error}
 * and a real model id the upstream's own object.
 */
class ModelAliasRetrieveRegressionTest {

  @Test
  void aConfiguredAliasIsAModelTheSdkCanRetrieve() throws Exception {
    try (Harness h = Harness.start("models:\n  chat:\n    chain: [emu/emu-ok, emu/claude-haiku-4-5]\n" + Harness.BASE_POLICY)) {
      ModelInfo chat = h.sdk.models().retrieve("chat");

      assertThat(chat.id()).isEqualTo("chat");
      assertThat(chat.displayName()).isEqualTo("chat (Levee alias: emu-ok, claude-haiku-4-5)");
      assertThat(chat.createdAt()).isNotNull();

      HttpResponse<String> raw = h.getWith("/v1/models/chat", "sk-ant-test");
      JsonNode body = Json.tryParse(raw.body());
      assertThat(body.path("type").asText()).isEqualTo("model");
      assertThat(body.path("created_at").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");

      HttpResponse<String> unknown = h.getWith("/v1/models/no-such-model", "sk-ant-test");
      assertThat(unknown.statusCode()).isEqualTo(404);
      assertThat(Json.tryParse(unknown.body()).path("error").path("type").asText()).isEqualTo("not_found_error");

      assertThat(h.sdk.models().retrieve("emu-ok").displayName()).isEqualTo("Emulator (healthy)"); // relayed
    }
  }
}
