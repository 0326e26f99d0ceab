package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An API fidelity audit (session 20): a token count sent with {@code "stream": true} (a client that
 * spreads its message parameters into {@code count_tokens}) was executed as a stream. An upstream
 * that answered the count as JSON regardless — the emulator did then; an Anthropic-compatible proxy
 * may — had its answer read as a stream cut before its first event: retried, answered 502, and
 * counted against the model's breaker, until the circuit opened and every client's {@code
 * /v1/messages} to that model got 503. A token count is never a stream: it goes upstream as a JSON
 * call whatever its body says, and the upstream judges the field (the Anthropic API refuses it with
 * a 400, a client error no breaker counts; the emulator now does too, so this test scripts a
 * tolerant upstream).
 */
class CountTokensNeverStreamsRegressionTest {

  private static final String COUNT_WITH_STREAM =
      "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hello %d\"}]}";
  private static final String MESSAGE =
      "{\"model\":\"m\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";
  private static final String ANSWER = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\","
      + "\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,"
      + "\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}";

  @Test
  void countsWithStreamTrueLeaveTheModelsCircuitClosedForEveryone() throws Exception {
    try (ScriptedUpstream upstream = new ScriptedUpstream(request -> ScriptedUpstream.Answer.json(
        request.has("max_tokens") ? ANSWER : "{\"input_tokens\":3}"));
        Harness h = Harness.start(upstream.upstream("tolerant") + "models:\n  m: { chain: [tolerant/m] }\n"
            + Harness.BASE_POLICY)) {
      for (int i = 0; i < 8; i++) {
        HttpResponse<String> count = h.post("/v1/messages/count_tokens", COUNT_WITH_STREAM.formatted(i),
            Map.of("x-api-key", "sk-a"));
        assertThat(count.statusCode()).as(count.body()).isEqualTo(200);
        assertThat(count.body()).contains("\"input_tokens\":3");
      }
      assertThat(upstream.calls).as("each count sent once: nothing to retry").hasSize(8);

      HttpResponse<String> answer = h.post("/v1/messages", MESSAGE, Map.of("x-api-key", "sk-b"));

      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    }
  }
}
