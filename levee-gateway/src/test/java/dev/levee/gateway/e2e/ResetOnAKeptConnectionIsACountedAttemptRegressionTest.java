package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.LogEntry;
import dev.levee.gateway.pipeline.LeveeHeaders;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A newcomer's trial (session 20): an upstream that reset the connection after reading a request
 * sent on a kept-alive connection had the request sent once more at once, inside the upstream
 * client: the upstream saw (and would bill) two calls, while Levee reported one attempt, no reason,
 * nothing to the breaker or the retry budget — a target resetting every call on a warm connection
 * never showed a failure. Only a connection the server had closed before the request (the write
 * failed, or the answer's read found the connection's end before any byte) is still replaced
 * silently; a reset after the request is the attempt's failure, which the retry policy counts.
 */
class ResetOnAKeptConnectionIsACountedAttemptRegressionTest {

  private static final String CONFIG = """
      models:
        warm: { chain: [emu/emu-ok] }
        resetting: { chain: [emu/emu-reset] }
      policy:
        retry: { max-retries: 2, base-delay: 1ms, max-delay: 2ms }
      """;

  @Test
  void aResetAfterTheRequestIsRetriedAsAnAttemptTheClientIsToldOf() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      assertThat(h.post("/v1/messages", body("warm"), Map.of("x-api-key", "sk-a")).statusCode())
          .as("a kept-alive connection to the emulator").isEqualTo(200);

      HttpResponse<String> answer = h.post("/v1/messages", body("resetting"), Map.of("x-api-key", "sk-a"));

      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
      assertThat(h.attempts("emu-reset")).extracting(LogEntry::action).containsExactly("reset", "ok");
      assertThat(answer.headers().firstValue(LeveeHeaders.ATTEMPTS)).as("every call the upstream saw")
          .hasValue("2");
    }
  }

  private static String body(String model) {
    return "{\"model\":\"" + model + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";
  }
}
