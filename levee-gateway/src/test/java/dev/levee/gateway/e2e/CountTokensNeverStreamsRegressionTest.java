package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.EmulatorOptions;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A token count sent with {@code "stream": true} (a client that spreads its message parameters
 * into {@code count_tokens}) was executed as a stream: the count's JSON answer read as a stream cut
 * before its first event, retried, answered 502, and counted against the model's breaker — a few
 * of them opened the circuit, and every client's {@code /v1/messages} to that model got 503 for its
 * open interval. A token count is never a stream: it goes upstream as a JSON call whatever its body
 * says, and the upstream judges the field (the Anthropic API refuses parameters a count does not
 * take with a 400, a client error that no breaker counts).
 */
class CountTokensNeverStreamsRegressionTest {

  private static final String COUNT_WITH_STREAM =
      "{\"model\":\"emu-ok\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hello %d\"}]}";
  private static final String MESSAGE =
      "{\"model\":\"emu-ok\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";

  @Test
  void countsWithStreamTrueLeaveTheModelsCircuitClosedForEveryone() throws Exception {
    try (Harness h = Harness.start(EmulatorOptions.defaults(), Harness.BASE_POLICY)) {
      for (int i = 0; i < 8; i++) {
        HttpResponse<String> count = h.post("/v1/messages/count_tokens", COUNT_WITH_STREAM.formatted(i),
            Map.of("x-api-key", "sk-a"));
        assertThat(count.statusCode()).as(count.body()).isLessThan(500);
        assertThat(count.headers().firstValue("content-type").orElse("")).startsWith("application/json");
      }
      assertThat(h.emulator.log()).as("each count sent once: nothing to retry").hasSize(8);

      HttpResponse<String> answer = h.post("/v1/messages", MESSAGE, Map.of("x-api-key", "sk-b"));

      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    }
  }
}
