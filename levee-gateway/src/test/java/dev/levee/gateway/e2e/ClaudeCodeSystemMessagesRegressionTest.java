package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.Json;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (issue 9, item 9): {@code claude --model smart} against the README's no-key set-up
 * (gateway in front of the emulator) failed: Claude Code sends messages of role {@code system}
 * with the {@code mid-conversation-system-2026-04-07} beta, and the emulator refused them.
 */
class ClaudeCodeSystemMessagesRegressionTest {

  @Test
  void aConversationWithASystemMessageUnderTheBetaIsAnsweredThroughTheGateway() throws Exception {
    try (Harness h = Harness.start("models:\n  smart:\n    chain: [emu/claude-sonnet-4-6]\n" + Harness.BASE_POLICY)) {
      String body = """
          {"model":"smart","max_tokens":64,"stream":true,"messages":[
            {"role":"user","content":"hi"},
            {"role":"system","content":"Be brief."},
            {"role":"user","content":"and now?"}]}""";

      HttpResponse<String> response = h.post("/v1/messages", body, Map.of("x-api-key", "k",
          "content-type", "application/json", "anthropic-beta", "mid-conversation-system-2026-04-07"));

      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      assertThat(response.body()).contains("event: message_stop");
      assertThat(h.attempts("claude-sonnet-4-6")).singleElement()
          .satisfies(e -> assertThat(e.anthropicBeta()).isEqualTo("mid-conversation-system-2026-04-07"));
      assertThat(Json.tryParse(h.get("/health").body()).path("status").asText()).isEqualTo("healthy");
    }
  }
}
